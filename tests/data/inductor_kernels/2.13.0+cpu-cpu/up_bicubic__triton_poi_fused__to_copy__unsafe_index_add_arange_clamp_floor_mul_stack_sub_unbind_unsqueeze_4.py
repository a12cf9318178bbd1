
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 512}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_floor_mul_stack_sub_unbind_unsqueeze_4', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 8, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 4608}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_floor_mul_stack_sub_unbind_unsqueeze_4(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, xnumel, XBLOCK : tl.constexpr):
    xnumel = 512
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 16) % 16)
    x0 = (xindex % 16)
    x2 = xindex // 256
    x5 = xindex
    tmp22 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp37 = tl.load(in_ptr2 + (x0), xmask, eviction_policy='evict_last')
    tmp52 = tl.load(in_ptr2 + (16 + x0), xmask, eviction_policy='evict_last')
    tmp76 = tl.load(in_ptr1 + (16 + x0), xmask, eviction_policy='evict_last')
    tmp85 = tl.load(in_ptr3 + (x1), xmask, eviction_policy='evict_last')
    tmp96 = tl.load(in_ptr4 + (x1), xmask, eviction_policy='evict_last')
    tmp132 = tl.load(in_ptr4 + (16 + x1), xmask, eviction_policy='evict_last')
    tmp140 = tl.load(in_ptr3 + (16 + x1), xmask, eviction_policy='evict_last')
    tmp0 = (x1).to(tl.float32)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp1
    tmp4 = tmp3 - tmp1
    tmp5 = libdevice.floor(tmp4)
    tmp6 = tmp5.to(tl.int32)
    tmp7 = tl.full([1], 0, tl.int64)
    tmp8 = triton_helpers.maximum(tmp6, tmp7)
    tmp9 = tl.full([1], 7, tl.int64)
    tmp10 = triton_helpers.minimum(tmp8, tmp9)
    tmp11 = (x0).to(tl.float32)
    tmp12 = tmp11 + tmp1
    tmp13 = tmp12 * tmp1
    tmp14 = tmp13 - tmp1
    tmp15 = libdevice.floor(tmp14)
    tmp16 = tmp15.to(tl.int32)
    tmp17 = tl.full([1], 1, tl.int64)
    tmp18 = tmp16 - tmp17
    tmp19 = triton_helpers.maximum(tmp18, tmp7)
    tmp20 = triton_helpers.minimum(tmp19, tmp9)
    tmp21 = tl.load(in_ptr0 + (tmp20 + 8*tmp10 + 64*x2), xmask, eviction_policy='evict_last')
    tmp23 = tl.full([1], -0.75, tl.float32)
    tmp24 = tmp22 * tmp23
    tmp25 = tl.full([1], -3.75, tl.float32)
    tmp26 = tmp24 - tmp25
    tmp27 = tmp26 * tmp22
    tmp28 = tl.full([1], -6.0, tl.float32)
    tmp29 = tmp27 + tmp28
    tmp30 = tmp29 * tmp22
    tmp31 = tl.full([1], -3.0, tl.float32)
    tmp32 = tmp30 - tmp31
    tmp33 = tmp21 * tmp32
    tmp34 = triton_helpers.maximum(tmp16, tmp7)
    tmp35 = triton_helpers.minimum(tmp34, tmp9)
    tmp36 = tl.load(in_ptr0 + (tmp35 + 8*tmp10 + 64*x2), xmask, eviction_policy='evict_last')
    tmp38 = tl.full([1], 1.25, tl.float32)
    tmp39 = tmp37 * tmp38
    tmp40 = tl.full([1], 2.25, tl.float32)
    tmp41 = tmp39 - tmp40
    tmp42 = tmp41 * tmp37
    tmp43 = tmp42 * tmp37
    tmp44 = tl.full([1], 1.0, tl.float32)
    tmp45 = tmp43 + tmp44
    tmp46 = tmp36 * tmp45
    tmp47 = tmp33 + tmp46
    tmp48 = tmp16 + tmp17
    tmp49 = triton_helpers.maximum(tmp48, tmp7)
    tmp50 = triton_helpers.minimum(tmp49, tmp9)
    tmp51 = tl.load(in_ptr0 + (tmp50 + 8*tmp10 + 64*x2), xmask, eviction_policy='evict_last')
    tmp53 = tmp52 * tmp38
    tmp54 = tmp53 - tmp40
    tmp55 = tmp54 * tmp52
    tmp56 = tmp55 * tmp52
    tmp57 = tmp56 + tmp44
    tmp58 = tmp51 * tmp57
    tmp59 = tmp47 + tmp58
    tmp60 = tmp6 - tmp17
    tmp61 = triton_helpers.maximum(tmp60, tmp7)
    tmp62 = triton_helpers.minimum(tmp61, tmp9)
    tmp63 = tl.load(in_ptr0 + (tmp20 + 8*tmp62 + 64*x2), xmask, eviction_policy='evict_last')
    tmp64 = tmp63 * tmp32
    tmp65 = tl.load(in_ptr0 + (tmp35 + 8*tmp62 + 64*x2), xmask, eviction_policy='evict_last')
    tmp66 = tmp65 * tmp45
    tmp67 = tmp64 + tmp66
    tmp68 = tl.load(in_ptr0 + (tmp50 + 8*tmp62 + 64*x2), xmask, eviction_policy='evict_last')
    tmp69 = tmp68 * tmp57
    tmp70 = tmp67 + tmp69
    tmp71 = tl.full([1], 2, tl.int64)
    tmp72 = tmp16 + tmp71
    tmp73 = triton_helpers.maximum(tmp72, tmp7)
    tmp74 = triton_helpers.minimum(tmp73, tmp9)
    tmp75 = tl.load(in_ptr0 + (tmp74 + 8*tmp62 + 64*x2), xmask, eviction_policy='evict_last')
    tmp77 = tmp76 * tmp23
    tmp78 = tmp77 - tmp25
    tmp79 = tmp78 * tmp76
    tmp80 = tmp79 + tmp28
    tmp81 = tmp80 * tmp76
    tmp82 = tmp81 - tmp31
    tmp83 = tmp75 * tmp82
    tmp84 = tmp70 + tmp83
    tmp86 = tmp85 * tmp23
    tmp87 = tmp86 - tmp25
    tmp88 = tmp87 * tmp85
    tmp89 = tmp88 + tmp28
    tmp90 = tmp89 * tmp85
    tmp91 = tmp90 - tmp31
    tmp92 = tmp84 * tmp91
    tmp93 = tl.load(in_ptr0 + (tmp74 + 8*tmp10 + 64*x2), xmask, eviction_policy='evict_last')
    tmp94 = tmp93 * tmp82
    tmp95 = tmp59 + tmp94
    tmp97 = tmp96 * tmp38
    tmp98 = tmp97 - tmp40
    tmp99 = tmp98 * tmp96
    tmp100 = tmp99 * tmp96
    tmp101 = tmp100 + tmp44
    tmp102 = tmp95 * tmp101
    tmp103 = tmp92 + tmp102
    tmp104 = tmp6 + tmp17
    tmp105 = triton_helpers.maximum(tmp104, tmp7)
    tmp106 = triton_helpers.minimum(tmp105, tmp9)
    tmp107 = tl.load(in_ptr0 + (tmp20 + 8*tmp106 + 64*x2), xmask, eviction_policy='evict_last')
    tmp108 = tmp107 * tmp32
    tmp109 = tl.load(in_ptr0 + (tmp35 + 8*tmp106 + 64*x2), xmask, eviction_policy='evict_last')
    tmp110 = tmp109 * tmp45
    tmp111 = tmp108 + tmp110
    tmp112 = tl.load(in_ptr0 + (tmp50 + 8*tmp106 + 64*x2), xmask, eviction_policy='evict_last')
    tmp113 = tmp112 * tmp57
    tmp114 = tmp111 + tmp113
    tmp115 = tl.load(in_ptr0 + (tmp74 + 8*tmp106 + 64*x2), xmask, eviction_policy='evict_last')
    tmp116 = tmp115 * tmp82
    tmp117 = tmp114 + tmp116
    tmp118 = tmp6 + tmp71
    tmp119 = triton_helpers.maximum(tmp118, tmp7)
    tmp120 = triton_helpers.minimum(tmp119, tmp9)
    tmp121 = tl.load(in_ptr0 + (tmp20 + 8*tmp120 + 64*x2), xmask, eviction_policy='evict_last')
    tmp122 = tmp121 * tmp32
    tmp123 = tl.load(in_ptr0 + (tmp35 + 8*tmp120 + 64*x2), xmask, eviction_policy='evict_last')
    tmp124 = tmp123 * tmp45
    tmp125 = tmp122 + tmp124
    tmp126 = tl.load(in_ptr0 + (tmp50 + 8*tmp120 + 64*x2), xmask, eviction_policy='evict_last')
    tmp127 = tmp126 * tmp57
    tmp128 = tmp125 + tmp127
    tmp129 = tl.load(in_ptr0 + (tmp74 + 8*tmp120 + 64*x2), xmask, eviction_policy='evict_last')
    tmp130 = tmp129 * tmp82
    tmp131 = tmp128 + tmp130
    tmp133 = tmp132 * tmp38
    tmp134 = tmp133 - tmp40
    tmp135 = tmp134 * tmp132
    tmp136 = tmp135 * tmp132
    tmp137 = tmp136 + tmp44
    tmp138 = tmp117 * tmp137
    tmp139 = tmp103 + tmp138
    tmp141 = tmp140 * tmp23
    tmp142 = tmp141 - tmp25
    tmp143 = tmp142 * tmp140
    tmp144 = tmp143 + tmp28
    tmp145 = tmp144 * tmp140
    tmp146 = tmp145 - tmp31
    tmp147 = tmp131 * tmp146
    tmp148 = tmp139 + tmp147
    tl.store(in_out_ptr0 + (x5), tmp148, xmask)
