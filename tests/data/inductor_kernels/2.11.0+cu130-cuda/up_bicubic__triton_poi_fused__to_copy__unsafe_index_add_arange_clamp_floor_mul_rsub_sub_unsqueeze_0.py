
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 512}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_floor_mul_rsub_sub_unsqueeze_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 4096}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_floor_mul_rsub_sub_unsqueeze_0(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 512
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 16) % 16)
    x0 = (xindex % 16)
    x2 = xindex // 256
    x4 = xindex
    tmp0 = x1
    tmp1 = tmp0.to(tl.float32)
    tmp2 = tl.full([1], 0.5, tl.float32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp3 * tmp2
    tmp5 = tmp4 - tmp2
    tmp6 = libdevice.floor(tmp5)
    tmp7 = tmp6.to(tl.int32)
    tmp8 = tl.full([1], 1, tl.int64)
    tmp9 = tmp7 - tmp8
    tmp10 = tl.full([1], 0, tl.int64)
    tmp11 = triton_helpers.maximum(tmp9, tmp10)
    tmp12 = tl.full([1], 7, tl.int64)
    tmp13 = triton_helpers.minimum(tmp11, tmp12)
    tmp14 = x0
    tmp15 = tmp14.to(tl.float32)
    tmp16 = tmp15 + tmp2
    tmp17 = tmp16 * tmp2
    tmp18 = tmp17 - tmp2
    tmp19 = libdevice.floor(tmp18)
    tmp20 = tmp19.to(tl.int32)
    tmp21 = tmp20 - tmp8
    tmp22 = triton_helpers.maximum(tmp21, tmp10)
    tmp23 = triton_helpers.minimum(tmp22, tmp12)
    tmp24 = tl.load(in_ptr0 + (tmp23 + 8*tmp13 + 64*x2), xmask, eviction_policy='evict_last')
    tmp25 = tmp18 - tmp19
    tmp26 = tl.full([1], 0.0, tl.float32)
    tmp27 = triton_helpers.maximum(tmp25, tmp26)
    tmp28 = tl.full([1], 1.0, tl.float32)
    tmp29 = triton_helpers.minimum(tmp27, tmp28)
    tmp30 = tmp29 + tmp28
    tmp31 = tl.full([1], -0.75, tl.float32)
    tmp32 = tmp30 * tmp31
    tmp33 = tl.full([1], -3.75, tl.float32)
    tmp34 = tmp32 - tmp33
    tmp35 = tmp34 * tmp30
    tmp36 = tl.full([1], -6.0, tl.float32)
    tmp37 = tmp35 + tmp36
    tmp38 = tmp37 * tmp30
    tmp39 = tl.full([1], -3.0, tl.float32)
    tmp40 = tmp38 - tmp39
    tmp41 = tmp24 * tmp40
    tmp42 = triton_helpers.maximum(tmp20, tmp10)
    tmp43 = triton_helpers.minimum(tmp42, tmp12)
    tmp44 = tl.load(in_ptr0 + (tmp43 + 8*tmp13 + 64*x2), xmask, eviction_policy='evict_last')
    tmp45 = tl.full([1], 1.25, tl.float32)
    tmp46 = tmp29 * tmp45
    tmp47 = tl.full([1], 2.25, tl.float32)
    tmp48 = tmp46 - tmp47
    tmp49 = tmp48 * tmp29
    tmp50 = tmp49 * tmp29
    tmp51 = tmp50 + tmp28
    tmp52 = tmp44 * tmp51
    tmp53 = tmp41 + tmp52
    tmp54 = tmp20 + tmp8
    tmp55 = triton_helpers.maximum(tmp54, tmp10)
    tmp56 = triton_helpers.minimum(tmp55, tmp12)
    tmp57 = tl.load(in_ptr0 + (tmp56 + 8*tmp13 + 64*x2), xmask, eviction_policy='evict_last')
    tmp58 = tmp28 - tmp29
    tmp59 = tmp58 * tmp45
    tmp60 = tmp59 - tmp47
    tmp61 = tmp60 * tmp58
    tmp62 = tmp61 * tmp58
    tmp63 = tmp62 + tmp28
    tmp64 = tmp57 * tmp63
    tmp65 = tmp53 + tmp64
    tmp66 = tl.full([1], 2, tl.int64)
    tmp67 = tmp20 + tmp66
    tmp68 = triton_helpers.maximum(tmp67, tmp10)
    tmp69 = triton_helpers.minimum(tmp68, tmp12)
    tmp70 = tl.load(in_ptr0 + (tmp69 + 8*tmp13 + 64*x2), xmask, eviction_policy='evict_last')
    tmp71 = tl.full([1], 2.0, tl.float32)
    tmp72 = tmp71 - tmp29
    tmp73 = tmp72 * tmp31
    tmp74 = tmp73 - tmp33
    tmp75 = tmp74 * tmp72
    tmp76 = tmp75 + tmp36
    tmp77 = tmp76 * tmp72
    tmp78 = tmp77 - tmp39
    tmp79 = tmp70 * tmp78
    tmp80 = tmp65 + tmp79
    tmp81 = triton_helpers.maximum(tmp7, tmp10)
    tmp82 = triton_helpers.minimum(tmp81, tmp12)
    tmp83 = tl.load(in_ptr0 + (tmp23 + 8*tmp82 + 64*x2), xmask, eviction_policy='evict_last')
    tmp84 = tmp83 * tmp40
    tmp85 = tl.load(in_ptr0 + (tmp43 + 8*tmp82 + 64*x2), xmask, eviction_policy='evict_last')
    tmp86 = tmp85 * tmp51
    tmp87 = tmp84 + tmp86
    tmp88 = tl.load(in_ptr0 + (tmp56 + 8*tmp82 + 64*x2), xmask, eviction_policy='evict_last')
    tmp89 = tmp88 * tmp63
    tmp90 = tmp87 + tmp89
    tmp91 = tl.load(in_ptr0 + (tmp69 + 8*tmp82 + 64*x2), xmask, eviction_policy='evict_last')
    tmp92 = tmp91 * tmp78
    tmp93 = tmp90 + tmp92
    tmp94 = tmp5 - tmp6
    tmp95 = triton_helpers.maximum(tmp94, tmp26)
    tmp96 = triton_helpers.minimum(tmp95, tmp28)
    tmp97 = tmp96 + tmp28
    tmp98 = tmp97 * tmp31
    tmp99 = tmp98 - tmp33
    tmp100 = tmp99 * tmp97
    tmp101 = tmp100 + tmp36
    tmp102 = tmp101 * tmp97
    tmp103 = tmp102 - tmp39
    tmp104 = tmp80 * tmp103
    tmp105 = tmp96 * tmp45
    tmp106 = tmp105 - tmp47
    tmp107 = tmp106 * tmp96
    tmp108 = tmp107 * tmp96
    tmp109 = tmp108 + tmp28
    tmp110 = tmp93 * tmp109
    tmp111 = tmp104 + tmp110
    tmp112 = tmp7 + tmp8
    tmp113 = triton_helpers.maximum(tmp112, tmp10)
    tmp114 = triton_helpers.minimum(tmp113, tmp12)
    tmp115 = tl.load(in_ptr0 + (tmp23 + 8*tmp114 + 64*x2), xmask, eviction_policy='evict_last')
    tmp116 = tmp115 * tmp40
    tmp117 = tl.load(in_ptr0 + (tmp43 + 8*tmp114 + 64*x2), xmask, eviction_policy='evict_last')
    tmp118 = tmp117 * tmp51
    tmp119 = tmp116 + tmp118
    tmp120 = tl.load(in_ptr0 + (tmp56 + 8*tmp114 + 64*x2), xmask, eviction_policy='evict_last')
    tmp121 = tmp120 * tmp63
    tmp122 = tmp119 + tmp121
    tmp123 = tl.load(in_ptr0 + (tmp69 + 8*tmp114 + 64*x2), xmask, eviction_policy='evict_last')
    tmp124 = tmp123 * tmp78
    tmp125 = tmp122 + tmp124
    tmp126 = tmp7 + tmp66
    tmp127 = triton_helpers.maximum(tmp126, tmp10)
    tmp128 = triton_helpers.minimum(tmp127, tmp12)
    tmp129 = tl.load(in_ptr0 + (tmp23 + 8*tmp128 + 64*x2), xmask, eviction_policy='evict_last')
    tmp130 = tmp129 * tmp40
    tmp131 = tl.load(in_ptr0 + (tmp43 + 8*tmp128 + 64*x2), xmask, eviction_policy='evict_last')
    tmp132 = tmp131 * tmp51
    tmp133 = tmp130 + tmp132
    tmp134 = tl.load(in_ptr0 + (tmp56 + 8*tmp128 + 64*x2), xmask, eviction_policy='evict_last')
    tmp135 = tmp134 * tmp63
    tmp136 = tmp133 + tmp135
    tmp137 = tl.load(in_ptr0 + (tmp69 + 8*tmp128 + 64*x2), xmask, eviction_policy='evict_last')
    tmp138 = tmp137 * tmp78
    tmp139 = tmp136 + tmp138
    tmp140 = tmp28 - tmp96
    tmp141 = tmp140 * tmp45
    tmp142 = tmp141 - tmp47
    tmp143 = tmp142 * tmp140
    tmp144 = tmp143 * tmp140
    tmp145 = tmp144 + tmp28
    tmp146 = tmp125 * tmp145
    tmp147 = tmp111 + tmp146
    tmp148 = tmp71 - tmp96
    tmp149 = tmp148 * tmp31
    tmp150 = tmp149 - tmp33
    tmp151 = tmp150 * tmp148
    tmp152 = tmp151 + tmp36
    tmp153 = tmp152 * tmp148
    tmp154 = tmp153 - tmp39
    tmp155 = tmp139 * tmp154
    tmp156 = tmp147 + tmp155
    tl.store(in_out_ptr0 + (x4), tmp156, xmask)
