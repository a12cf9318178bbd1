
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 256}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__adaptive_avg_pool2d_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 24, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 1920}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__adaptive_avg_pool2d_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 240
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 3) % 5)
    x0 = (xindex % 3)
    x2 = xindex // 15
    x4 = xindex
    tmp0 = (16*x1) // 5
    tmp1 = 4 + ((16*x1) // 5)
    tmp2 = tmp0 < tmp1
    tmp3 = (16*x0) // 3
    tmp4 = 6 + ((16*x0) // 3)
    tmp5 = tmp3 < tmp4
    tmp6 = tmp2 & tmp5
    tmp7 = tl.load(in_ptr0 + (16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp6 & xmask, eviction_policy='evict_last', other=0.0)
    tmp8 = 1 + ((16*x0) // 3)
    tmp9 = tmp8 < tmp4
    tmp10 = tmp2 & tmp9
    tmp11 = tl.load(in_ptr0 + (1 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp10 & xmask, eviction_policy='evict_last', other=0.0)
    tmp12 = tmp11 + tmp7
    tmp13 = 2 + ((16*x0) // 3)
    tmp14 = tmp13 < tmp4
    tmp15 = tmp2 & tmp14
    tmp16 = tl.load(in_ptr0 + (2 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp15 & xmask, eviction_policy='evict_last', other=0.0)
    tmp17 = tmp16 + tmp12
    tmp18 = 3 + ((16*x0) // 3)
    tmp19 = tmp18 < tmp4
    tmp20 = tmp2 & tmp19
    tmp21 = tl.load(in_ptr0 + (3 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp20 & xmask, eviction_policy='evict_last', other=0.0)
    tmp22 = tmp21 + tmp17
    tmp23 = 4 + ((16*x0) // 3)
    tmp24 = tmp23 < tmp4
    tmp25 = tmp2 & tmp24
    tmp26 = tl.load(in_ptr0 + (4 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp25 & xmask, eviction_policy='evict_last', other=0.0)
    tmp27 = tmp26 + tmp22
    tmp28 = 5 + ((16*x0) // 3)
    tmp29 = tmp28 < tmp4
    tmp30 = tmp2 & tmp29
    tmp31 = tl.load(in_ptr0 + (5 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp30 & xmask, eviction_policy='evict_last', other=0.0)
    tmp32 = tmp31 + tmp27
    tmp33 = 1 + ((16*x1) // 5)
    tmp34 = tmp33 < tmp1
    tmp35 = tmp34 & tmp5
    tmp36 = tl.load(in_ptr0 + (16 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp35 & xmask, eviction_policy='evict_last', other=0.0)
    tmp37 = tmp36 + tmp32
    tmp38 = tmp34 & tmp9
    tmp39 = tl.load(in_ptr0 + (17 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp38 & xmask, eviction_policy='evict_last', other=0.0)
    tmp40 = tmp39 + tmp37
    tmp41 = tmp34 & tmp14
    tmp42 = tl.load(in_ptr0 + (18 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp41 & xmask, eviction_policy='evict_last', other=0.0)
    tmp43 = tmp42 + tmp40
    tmp44 = tmp34 & tmp19
    tmp45 = tl.load(in_ptr0 + (19 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp44 & xmask, eviction_policy='evict_last', other=0.0)
    tmp46 = tmp45 + tmp43
    tmp47 = tmp34 & tmp24
    tmp48 = tl.load(in_ptr0 + (20 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp47 & xmask, eviction_policy='evict_last', other=0.0)
    tmp49 = tmp48 + tmp46
    tmp50 = tmp34 & tmp29
    tmp51 = tl.load(in_ptr0 + (21 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp50 & xmask, eviction_policy='evict_last', other=0.0)
    tmp52 = tmp51 + tmp49
    tmp53 = 2 + ((16*x1) // 5)
    tmp54 = tmp53 < tmp1
    tmp55 = tmp54 & tmp5
    tmp56 = tl.load(in_ptr0 + (32 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp55 & xmask, eviction_policy='evict_last', other=0.0)
    tmp57 = tmp56 + tmp52
    tmp58 = tmp54 & tmp9
    tmp59 = tl.load(in_ptr0 + (33 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp58 & xmask, eviction_policy='evict_last', other=0.0)
    tmp60 = tmp59 + tmp57
    tmp61 = tmp54 & tmp14
    tmp62 = tl.load(in_ptr0 + (34 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp61 & xmask, eviction_policy='evict_last', other=0.0)
    tmp63 = tmp62 + tmp60
    tmp64 = tmp54 & tmp19
    tmp65 = tl.load(in_ptr0 + (35 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp64 & xmask, eviction_policy='evict_last', other=0.0)
    tmp66 = tmp65 + tmp63
    tmp67 = tmp54 & tmp24
    tmp68 = tl.load(in_ptr0 + (36 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp67 & xmask, eviction_policy='evict_last', other=0.0)
    tmp69 = tmp68 + tmp66
    tmp70 = tmp54 & tmp29
    tmp71 = tl.load(in_ptr0 + (37 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp70 & xmask, eviction_policy='evict_last', other=0.0)
    tmp72 = tmp71 + tmp69
    tmp73 = 3 + ((16*x1) // 5)
    tmp74 = tmp73 < tmp1
    tmp75 = tmp74 & tmp5
    tmp76 = tl.load(in_ptr0 + (48 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp75 & xmask, eviction_policy='evict_last', other=0.0)
    tmp77 = tmp76 + tmp72
    tmp78 = tmp74 & tmp9
    tmp79 = tl.load(in_ptr0 + (49 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp78 & xmask, eviction_policy='evict_last', other=0.0)
    tmp80 = tmp79 + tmp77
    tmp81 = tmp74 & tmp14
    tmp82 = tl.load(in_ptr0 + (50 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp81 & xmask, eviction_policy='evict_last', other=0.0)
    tmp83 = tmp82 + tmp80
    tmp84 = tmp74 & tmp19
    tmp85 = tl.load(in_ptr0 + (51 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp84 & xmask, eviction_policy='evict_last', other=0.0)
    tmp86 = tmp85 + tmp83
    tmp87 = tmp74 & tmp24
    tmp88 = tl.load(in_ptr0 + (52 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp87 & xmask, eviction_policy='evict_last', other=0.0)
    tmp89 = tmp88 + tmp86
    tmp90 = tmp74 & tmp29
    tmp91 = tl.load(in_ptr0 + (53 + 16*((16*x1) // 5) + 256*x2 + ((16*x0) // 3)), tmp90 & xmask, eviction_policy='evict_last', other=0.0)
    tmp92 = tmp91 + tmp89
    tmp93 = tl.full([1], 1.0, tl.float32)
    tmp94 = tl.full(tmp93.shape, 0.0, tmp93.dtype)
    tmp95 = tl.where(tmp6, tmp93, tmp94)
    tmp96 = tl.full([1], 1.0, tl.float32)
    tmp97 = tl.full(tmp96.shape, 0.0, tmp96.dtype)
    tmp98 = tl.where(tmp10, tmp96, tmp97)
    tmp99 = tmp98 + tmp95
    tmp100 = tl.full([1], 1.0, tl.float32)
    tmp101 = tl.full(tmp100.shape, 0.0, tmp100.dtype)
    tmp102 = tl.where(tmp15, tmp100, tmp101)
    tmp103 = tmp102 + tmp99
    tmp104 = tl.full([1], 1.0, tl.float32)
    tmp105 = tl.full(tmp104.shape, 0.0, tmp104.dtype)
    tmp106 = tl.where(tmp20, tmp104, tmp105)
    tmp107 = tmp106 + tmp103
    tmp108 = tl.full([1], 1.0, tl.float32)
    tmp109 = tl.full(tmp108.shape, 0.0, tmp108.dtype)
    tmp110 = tl.where(tmp25, tmp108, tmp109)
    tmp111 = tmp110 + tmp107
    tmp112 = tl.full([1], 1.0, tl.float32)
    tmp113 = tl.full(tmp112.shape, 0.0, tmp112.dtype)
    tmp114 = tl.where(tmp30, tmp112, tmp113)
    tmp115 = tmp114 + tmp111
    tmp116 = tl.full([1], 1.0, tl.float32)
    tmp117 = tl.full(tmp116.shape, 0.0, tmp116.dtype)
    tmp118 = tl.where(tmp35, tmp116, tmp117)
    tmp119 = tmp118 + tmp115
    tmp120 = tl.full([1], 1.0, tl.float32)
    tmp121 = tl.full(tmp120.shape, 0.0, tmp120.dtype)
    tmp122 = tl.where(tmp38, tmp120, tmp121)
    tmp123 = tmp122 + tmp119
    tmp124 = tl.full([1], 1.0, tl.float32)
    tmp125 = tl.full(tmp124.shape, 0.0, tmp124.dtype)
    tmp126 = tl.where(tmp41, tmp124, tmp125)
    tmp127 = tmp126 + tmp123
    tmp128 = tl.full([1], 1.0, tl.float32)
    tmp129 = tl.full(tmp128.shape, 0.0, tmp128.dtype)
    tmp130 = tl.where(tmp44, tmp128, tmp129)
    tmp131 = tmp130 + tmp127
    tmp132 = tl.full([1], 1.0, tl.float32)
    tmp133 = tl.full(tmp132.shape, 0.0, tmp132.dtype)
    tmp134 = tl.where(tmp47, tmp132, tmp133)
    tmp135 = tmp134 + tmp131
    tmp136 = tl.full([1], 1.0, tl.float32)
    tmp137 = tl.full(tmp136.shape, 0.0, tmp136.dtype)
    tmp138 = tl.where(tmp50, tmp136, tmp137)
    tmp139 = tmp138 + tmp135
    tmp140 = tl.full([1], 1.0, tl.float32)
    tmp141 = tl.full(tmp140.shape, 0.0, tmp140.dtype)
    tmp142 = tl.where(tmp55, tmp140, tmp141)
    tmp143 = tmp142 + tmp139
    tmp144 = tl.full([1], 1.0, tl.float32)
    tmp145 = tl.full(tmp144.shape, 0.0, tmp144.dtype)
    tmp146 = tl.where(tmp58, tmp144, tmp145)
    tmp147 = tmp146 + tmp143
    tmp148 = tl.full([1], 1.0, tl.float32)
    tmp149 = tl.full(tmp148.shape, 0.0, tmp148.dtype)
    tmp150 = tl.where(tmp61, tmp148, tmp149)
    tmp151 = tmp150 + tmp147
    tmp152 = tl.full([1], 1.0, tl.float32)
    tmp153 = tl.full(tmp152.shape, 0.0, tmp152.dtype)
    tmp154 = tl.where(tmp64, tmp152, tmp153)
    tmp155 = tmp154 + tmp151
    tmp156 = tl.full([1], 1.0, tl.float32)
    tmp157 = tl.full(tmp156.shape, 0.0, tmp156.dtype)
    tmp158 = tl.where(tmp67, tmp156, tmp157)
    tmp159 = tmp158 + tmp155
    tmp160 = tl.full([1], 1.0, tl.float32)
    tmp161 = tl.full(tmp160.shape, 0.0, tmp160.dtype)
    tmp162 = tl.where(tmp70, tmp160, tmp161)
    tmp163 = tmp162 + tmp159
    tmp164 = tl.full([1], 1.0, tl.float32)
    tmp165 = tl.full(tmp164.shape, 0.0, tmp164.dtype)
    tmp166 = tl.where(tmp75, tmp164, tmp165)
    tmp167 = tmp166 + tmp163
    tmp168 = tl.full([1], 1.0, tl.float32)
    tmp169 = tl.full(tmp168.shape, 0.0, tmp168.dtype)
    tmp170 = tl.where(tmp78, tmp168, tmp169)
    tmp171 = tmp170 + tmp167
    tmp172 = tl.full([1], 1.0, tl.float32)
    tmp173 = tl.full(tmp172.shape, 0.0, tmp172.dtype)
    tmp174 = tl.where(tmp81, tmp172, tmp173)
    tmp175 = tmp174 + tmp171
    tmp176 = tl.full([1], 1.0, tl.float32)
    tmp177 = tl.full(tmp176.shape, 0.0, tmp176.dtype)
    tmp178 = tl.where(tmp84, tmp176, tmp177)
    tmp179 = tmp178 + tmp175
    tmp180 = tl.full([1], 1.0, tl.float32)
    tmp181 = tl.full(tmp180.shape, 0.0, tmp180.dtype)
    tmp182 = tl.where(tmp87, tmp180, tmp181)
    tmp183 = tmp182 + tmp179
    tmp184 = tl.full([1], 1.0, tl.float32)
    tmp185 = tl.full(tmp184.shape, 0.0, tmp184.dtype)
    tmp186 = tl.where(tmp90, tmp184, tmp185)
    tmp187 = tmp186 + tmp183
    tmp188 = (tmp92 / tmp187)
    tl.store(out_ptr0 + (x4), tmp188, xmask)
