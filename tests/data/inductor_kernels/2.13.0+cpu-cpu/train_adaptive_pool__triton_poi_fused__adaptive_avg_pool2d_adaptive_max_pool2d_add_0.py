
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 32}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'out_ptr1': '*i64', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__adaptive_avg_pool2d_adaptive_max_pool2d_add_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 32, 'num_store': 2, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 432}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__adaptive_avg_pool2d_adaptive_max_pool2d_add_0(in_out_ptr0, in_ptr0, out_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 18
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 3) % 3)
    x0 = (xindex % 3)
    x2 = xindex // 9
    x3 = xindex
    tmp0 = ((8*x1) // 3).to(tl.int32)
    tmp1 = ((10 + 8*x1) // 3).to(tl.int32)
    tmp2 = tmp0 < tmp1
    tmp3 = ((8*x0) // 3).to(tl.int32)
    tmp4 = ((10 + 8*x0) // 3).to(tl.int32)
    tmp5 = tmp3 < tmp4
    tmp6 = tmp2 & tmp5
    tmp7 = tl.load(in_ptr0 + (8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp6 & xmask, eviction_policy='evict_last', other=0.0)
    tmp8 = (1 + ((8*x0) // 3)).to(tl.int32)
    tmp9 = tmp8 < tmp4
    tmp10 = tmp2 & tmp9
    tmp11 = tl.load(in_ptr0 + (1 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp10 & xmask, eviction_policy='evict_last', other=0.0)
    tmp12 = tmp11 + tmp7
    tmp13 = (2 + ((8*x0) // 3)).to(tl.int32)
    tmp14 = tmp13 < tmp4
    tmp15 = tmp2 & tmp14
    tmp16 = tl.load(in_ptr0 + (2 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp15 & xmask, eviction_policy='evict_last', other=0.0)
    tmp17 = tmp16 + tmp12
    tmp18 = (3 + ((8*x0) // 3)).to(tl.int32)
    tmp19 = tmp18 < tmp4
    tmp20 = tmp2 & tmp19
    tmp21 = tl.load(in_ptr0 + (3 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp20 & xmask, eviction_policy='evict_last', other=0.0)
    tmp22 = tmp21 + tmp17
    tmp23 = (1 + ((8*x1) // 3)).to(tl.int32)
    tmp24 = tmp23 < tmp1
    tmp25 = tmp24 & tmp5
    tmp26 = tl.load(in_ptr0 + (8 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp25 & xmask, eviction_policy='evict_last', other=0.0)
    tmp27 = tmp26 + tmp22
    tmp28 = tmp24 & tmp9
    tmp29 = tl.load(in_ptr0 + (9 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp28 & xmask, eviction_policy='evict_last', other=0.0)
    tmp30 = tmp29 + tmp27
    tmp31 = tmp24 & tmp14
    tmp32 = tl.load(in_ptr0 + (10 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp31 & xmask, eviction_policy='evict_last', other=0.0)
    tmp33 = tmp32 + tmp30
    tmp34 = tmp24 & tmp19
    tmp35 = tl.load(in_ptr0 + (11 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp34 & xmask, eviction_policy='evict_last', other=0.0)
    tmp36 = tmp35 + tmp33
    tmp37 = (2 + ((8*x1) // 3)).to(tl.int32)
    tmp38 = tmp37 < tmp1
    tmp39 = tmp38 & tmp5
    tmp40 = tl.load(in_ptr0 + (16 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp39 & xmask, eviction_policy='evict_last', other=0.0)
    tmp41 = tmp40 + tmp36
    tmp42 = tmp38 & tmp9
    tmp43 = tl.load(in_ptr0 + (17 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp42 & xmask, eviction_policy='evict_last', other=0.0)
    tmp44 = tmp43 + tmp41
    tmp45 = tmp38 & tmp14
    tmp46 = tl.load(in_ptr0 + (18 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp45 & xmask, eviction_policy='evict_last', other=0.0)
    tmp47 = tmp46 + tmp44
    tmp48 = tmp38 & tmp19
    tmp49 = tl.load(in_ptr0 + (19 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp48 & xmask, eviction_policy='evict_last', other=0.0)
    tmp50 = tmp49 + tmp47
    tmp51 = (3 + ((8*x1) // 3)).to(tl.int32)
    tmp52 = tmp51 < tmp1
    tmp53 = tmp52 & tmp5
    tmp54 = tl.load(in_ptr0 + (24 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp53 & xmask, eviction_policy='evict_last', other=0.0)
    tmp55 = tmp54 + tmp50
    tmp56 = tmp52 & tmp9
    tmp57 = tl.load(in_ptr0 + (25 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp56 & xmask, eviction_policy='evict_last', other=0.0)
    tmp58 = tmp57 + tmp55
    tmp59 = tmp52 & tmp14
    tmp60 = tl.load(in_ptr0 + (26 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp59 & xmask, eviction_policy='evict_last', other=0.0)
    tmp61 = tmp60 + tmp58
    tmp62 = tmp52 & tmp19
    tmp63 = tl.load(in_ptr0 + (27 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp62 & xmask, eviction_policy='evict_last', other=0.0)
    tmp64 = tmp63 + tmp61
    tmp65 = tl.full([1], 1.0, tl.float32)
    tmp66 = tl.full(tmp65.shape, 0.0, tmp65.dtype)
    tmp67 = tl.where(tmp6, tmp65, tmp66)
    tmp68 = tl.full([1], 1.0, tl.float32)
    tmp69 = tl.full(tmp68.shape, 0.0, tmp68.dtype)
    tmp70 = tl.where(tmp10, tmp68, tmp69)
    tmp71 = tmp70 + tmp67
    tmp72 = tl.full([1], 1.0, tl.float32)
    tmp73 = tl.full(tmp72.shape, 0.0, tmp72.dtype)
    tmp74 = tl.where(tmp15, tmp72, tmp73)
    tmp75 = tmp74 + tmp71
    tmp76 = tl.full([1], 1.0, tl.float32)
    tmp77 = tl.full(tmp76.shape, 0.0, tmp76.dtype)
    tmp78 = tl.where(tmp20, tmp76, tmp77)
    tmp79 = tmp78 + tmp75
    tmp80 = tl.full([1], 1.0, tl.float32)
    tmp81 = tl.full(tmp80.shape, 0.0, tmp80.dtype)
    tmp82 = tl.where(tmp25, tmp80, tmp81)
    tmp83 = tmp82 + tmp79
    tmp84 = tl.full([1], 1.0, tl.float32)
    tmp85 = tl.full(tmp84.shape, 0.0, tmp84.dtype)
    tmp86 = tl.where(tmp28, tmp84, tmp85)
    tmp87 = tmp86 + tmp83
    tmp88 = tl.full([1], 1.0, tl.float32)
    tmp89 = tl.full(tmp88.shape, 0.0, tmp88.dtype)
    tmp90 = tl.where(tmp31, tmp88, tmp89)
    tmp91 = tmp90 + tmp87
    tmp92 = tl.full([1], 1.0, tl.float32)
    tmp93 = tl.full(tmp92.shape, 0.0, tmp92.dtype)
    tmp94 = tl.where(tmp34, tmp92, tmp93)
    tmp95 = tmp94 + tmp91
    tmp96 = tl.full([1], 1.0, tl.float32)
    tmp97 = tl.full(tmp96.shape, 0.0, tmp96.dtype)
    tmp98 = tl.where(tmp39, tmp96, tmp97)
    tmp99 = tmp98 + tmp95
    tmp100 = tl.full([1], 1.0, tl.float32)
    tmp101 = tl.full(tmp100.shape, 0.0, tmp100.dtype)
    tmp102 = tl.where(tmp42, tmp100, tmp101)
    tmp103 = tmp102 + tmp99
    tmp104 = tl.full([1], 1.0, tl.float32)
    tmp105 = tl.full(tmp104.shape, 0.0, tmp104.dtype)
    tmp106 = tl.where(tmp45, tmp104, tmp105)
    tmp107 = tmp106 + tmp103
    tmp108 = tl.full([1], 1.0, tl.float32)
    tmp109 = tl.full(tmp108.shape, 0.0, tmp108.dtype)
    tmp110 = tl.where(tmp48, tmp108, tmp109)
    tmp111 = tmp110 + tmp107
    tmp112 = tl.full([1], 1.0, tl.float32)
    tmp113 = tl.full(tmp112.shape, 0.0, tmp112.dtype)
    tmp114 = tl.where(tmp53, tmp112, tmp113)
    tmp115 = tmp114 + tmp111
    tmp116 = tl.full([1], 1.0, tl.float32)
    tmp117 = tl.full(tmp116.shape, 0.0, tmp116.dtype)
    tmp118 = tl.where(tmp56, tmp116, tmp117)
    tmp119 = tmp118 + tmp115
    tmp120 = tl.full([1], 1.0, tl.float32)
    tmp121 = tl.full(tmp120.shape, 0.0, tmp120.dtype)
    tmp122 = tl.where(tmp59, tmp120, tmp121)
    tmp123 = tmp122 + tmp119
    tmp124 = tl.full([1], 1.0, tl.float32)
    tmp125 = tl.full(tmp124.shape, 0.0, tmp124.dtype)
    tmp126 = tl.where(tmp62, tmp124, tmp125)
    tmp127 = tmp126 + tmp123
    tmp128 = (tmp64 / tmp127)
    tmp129 = tl.load(in_ptr0 + (8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp6 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp130 = tl.load(in_ptr0 + (1 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp10 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp131 = triton_helpers.maximum(tmp130, tmp129)
    tmp132 = tl.load(in_ptr0 + (2 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp15 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp133 = triton_helpers.maximum(tmp132, tmp131)
    tmp134 = tl.load(in_ptr0 + (3 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp20 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp135 = triton_helpers.maximum(tmp134, tmp133)
    tmp136 = tl.load(in_ptr0 + (8 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp25 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp137 = triton_helpers.maximum(tmp136, tmp135)
    tmp138 = tl.load(in_ptr0 + (9 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp28 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp139 = triton_helpers.maximum(tmp138, tmp137)
    tmp140 = tl.load(in_ptr0 + (10 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp31 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp141 = triton_helpers.maximum(tmp140, tmp139)
    tmp142 = tl.load(in_ptr0 + (11 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp34 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp143 = triton_helpers.maximum(tmp142, tmp141)
    tmp144 = tl.load(in_ptr0 + (16 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp39 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp145 = triton_helpers.maximum(tmp144, tmp143)
    tmp146 = tl.load(in_ptr0 + (17 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp42 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp147 = triton_helpers.maximum(tmp146, tmp145)
    tmp148 = tl.load(in_ptr0 + (18 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp45 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp149 = triton_helpers.maximum(tmp148, tmp147)
    tmp150 = tl.load(in_ptr0 + (19 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp48 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp151 = triton_helpers.maximum(tmp150, tmp149)
    tmp152 = tl.load(in_ptr0 + (24 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp53 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp153 = triton_helpers.maximum(tmp152, tmp151)
    tmp154 = tl.load(in_ptr0 + (25 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp56 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp155 = triton_helpers.maximum(tmp154, tmp153)
    tmp156 = tl.load(in_ptr0 + (26 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp59 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp157 = triton_helpers.maximum(tmp156, tmp155)
    tmp158 = tl.load(in_ptr0 + (27 + 8*((8*x1) // 3) + 64*x2 + ((8*x0) // 3)), tmp62 & xmask, eviction_policy='evict_last', other=float("-inf"))
    tmp159 = triton_helpers.maximum(tmp158, tmp157)
    tmp160 = tmp130 > tmp129
    tmp161 = (1 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp162 = (tmp161).to(tl.int64)
    tmp163 = (8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp164 = (tmp163).to(tl.int64)
    tmp165 = tl.where(tmp160, tmp162, tmp164)
    tmp166 = tmp132 > tmp131
    tmp167 = (2 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp168 = (tmp167).to(tl.int64)
    tmp169 = tl.where(tmp166, tmp168, tmp165)
    tmp170 = tmp134 > tmp133
    tmp171 = (3 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp172 = (tmp171).to(tl.int64)
    tmp173 = tl.where(tmp170, tmp172, tmp169)
    tmp174 = tmp136 > tmp135
    tmp175 = (8 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp176 = (tmp175).to(tl.int64)
    tmp177 = tl.where(tmp174, tmp176, tmp173)
    tmp178 = tmp138 > tmp137
    tmp179 = (9 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp180 = (tmp179).to(tl.int64)
    tmp181 = tl.where(tmp178, tmp180, tmp177)
    tmp182 = tmp140 > tmp139
    tmp183 = (10 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp184 = (tmp183).to(tl.int64)
    tmp185 = tl.where(tmp182, tmp184, tmp181)
    tmp186 = tmp142 > tmp141
    tmp187 = (11 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp188 = (tmp187).to(tl.int64)
    tmp189 = tl.where(tmp186, tmp188, tmp185)
    tmp190 = tmp144 > tmp143
    tmp191 = (16 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp192 = (tmp191).to(tl.int64)
    tmp193 = tl.where(tmp190, tmp192, tmp189)
    tmp194 = tmp146 > tmp145
    tmp195 = (17 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp196 = (tmp195).to(tl.int64)
    tmp197 = tl.where(tmp194, tmp196, tmp193)
    tmp198 = tmp148 > tmp147
    tmp199 = (18 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp200 = (tmp199).to(tl.int64)
    tmp201 = tl.where(tmp198, tmp200, tmp197)
    tmp202 = tmp150 > tmp149
    tmp203 = (19 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp204 = (tmp203).to(tl.int64)
    tmp205 = tl.where(tmp202, tmp204, tmp201)
    tmp206 = tmp152 > tmp151
    tmp207 = (24 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp208 = (tmp207).to(tl.int64)
    tmp209 = tl.where(tmp206, tmp208, tmp205)
    tmp210 = tmp154 > tmp153
    tmp211 = (25 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp212 = (tmp211).to(tl.int64)
    tmp213 = tl.where(tmp210, tmp212, tmp209)
    tmp214 = tmp156 > tmp155
    tmp215 = (26 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp216 = (tmp215).to(tl.int64)
    tmp217 = tl.where(tmp214, tmp216, tmp213)
    tmp218 = tmp158 > tmp157
    tmp219 = (27 + 8*((8*x1) // 3) + ((8*x0) // 3)).to(tl.int64)
    tmp220 = (tmp219).to(tl.int64)
    tmp221 = tl.where(tmp218, tmp220, tmp217)
    tmp222 = tmp128 + tmp159
    tl.store(out_ptr1 + (x3), tmp221, xmask)
    tl.store(in_out_ptr0 + (x3), tmp222, xmask)
