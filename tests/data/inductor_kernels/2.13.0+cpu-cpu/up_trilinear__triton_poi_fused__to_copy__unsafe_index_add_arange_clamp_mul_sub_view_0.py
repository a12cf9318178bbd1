
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 27648}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 3456
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = ((xindex // 144) % 12)
    x1 = ((xindex // 12) % 12)
    x0 = (xindex % 12)
    x3 = xindex // 1728
    x5 = xindex
    tmp0 = (x2).to(tl.float32)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp1
    tmp4 = tmp3 - tmp1
    tmp5 = tl.full([1], 0.0, tl.float32)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tmp7 = tmp6.to(tl.int32)
    tmp8 = tl.full([1], 1, tl.int64)
    tmp9 = tmp7 + tmp8
    tmp10 = tl.full([1], 5, tl.int64)
    tmp11 = triton_helpers.minimum(tmp9, tmp10)
    tmp12 = (x1).to(tl.float32)
    tmp13 = tmp12 + tmp1
    tmp14 = tmp13 * tmp1
    tmp15 = tmp14 - tmp1
    tmp16 = triton_helpers.maximum(tmp15, tmp5)
    tmp17 = tmp16.to(tl.int32)
    tmp18 = tmp17 + tmp8
    tmp19 = triton_helpers.minimum(tmp18, tmp10)
    tmp20 = (x0).to(tl.float32)
    tmp21 = tmp20 + tmp1
    tmp22 = tmp21 * tmp1
    tmp23 = tmp22 - tmp1
    tmp24 = triton_helpers.maximum(tmp23, tmp5)
    tmp25 = tmp24.to(tl.int32)
    tmp26 = tl.load(in_ptr0 + (tmp25 + 6*tmp19 + 36*tmp11 + 216*x3), xmask, eviction_policy='evict_last')
    tmp27 = tmp25 + tmp8
    tmp28 = triton_helpers.minimum(tmp27, tmp10)
    tmp29 = tl.load(in_ptr0 + (tmp28 + 6*tmp19 + 36*tmp11 + 216*x3), xmask, eviction_policy='evict_last')
    tmp30 = tmp29 - tmp26
    tmp31 = (tmp20).to(tl.float32)
    tmp32 = tmp31 + tmp1
    tmp33 = tmp32 * tmp1
    tmp34 = tmp33 - tmp1
    tmp35 = triton_helpers.maximum(tmp34, tmp5)
    tmp36 = tmp35.to(tl.int32)
    tmp37 = tmp36.to(tl.float32)
    tmp38 = tmp35 - tmp37
    tmp39 = triton_helpers.maximum(tmp38, tmp5)
    tmp40 = tl.full([1], 1.0, tl.float32)
    tmp41 = triton_helpers.minimum(tmp39, tmp40)
    tmp42 = tmp30 * tmp41
    tmp43 = tmp26 + tmp42
    tmp44 = tl.load(in_ptr0 + (tmp25 + 6*tmp17 + 36*tmp11 + 216*x3), xmask, eviction_policy='evict_last')
    tmp45 = tl.load(in_ptr0 + (tmp28 + 6*tmp17 + 36*tmp11 + 216*x3), xmask, eviction_policy='evict_last')
    tmp46 = tmp45 - tmp44
    tmp47 = tmp46 * tmp41
    tmp48 = tmp44 + tmp47
    tmp49 = tmp43 - tmp48
    tmp50 = (tmp12).to(tl.float32)
    tmp51 = tmp50 + tmp1
    tmp52 = tmp51 * tmp1
    tmp53 = tmp52 - tmp1
    tmp54 = triton_helpers.maximum(tmp53, tmp5)
    tmp55 = tmp54.to(tl.int32)
    tmp56 = tmp55.to(tl.float32)
    tmp57 = tmp54 - tmp56
    tmp58 = triton_helpers.maximum(tmp57, tmp5)
    tmp59 = triton_helpers.minimum(tmp58, tmp40)
    tmp60 = tmp49 * tmp59
    tmp61 = tl.load(in_ptr0 + (tmp25 + 6*tmp17 + 36*tmp7 + 216*x3), xmask, eviction_policy='evict_last')
    tmp62 = tl.load(in_ptr0 + (tmp28 + 6*tmp17 + 36*tmp7 + 216*x3), xmask, eviction_policy='evict_last')
    tmp63 = tmp62 - tmp61
    tmp64 = tmp63 * tmp41
    tmp65 = tmp61 + tmp64
    tmp66 = tl.load(in_ptr0 + (tmp25 + 6*tmp19 + 36*tmp7 + 216*x3), xmask, eviction_policy='evict_last')
    tmp67 = tl.load(in_ptr0 + (tmp28 + 6*tmp19 + 36*tmp7 + 216*x3), xmask, eviction_policy='evict_last')
    tmp68 = tmp67 - tmp66
    tmp69 = tmp68 * tmp41
    tmp70 = tmp66 + tmp69
    tmp71 = tmp70 - tmp65
    tmp72 = tmp71 * tmp59
    tmp73 = tmp65 + tmp72
    tmp74 = tmp48 + tmp60
    tmp75 = tmp74 - tmp73
    tmp76 = (tmp0).to(tl.float32)
    tmp77 = tmp76 + tmp1
    tmp78 = tmp77 * tmp1
    tmp79 = tmp78 - tmp1
    tmp80 = triton_helpers.maximum(tmp79, tmp5)
    tmp81 = tmp80.to(tl.int32)
    tmp82 = tmp81.to(tl.float32)
    tmp83 = tmp80 - tmp82
    tmp84 = triton_helpers.maximum(tmp83, tmp5)
    tmp85 = triton_helpers.minimum(tmp84, tmp40)
    tmp86 = tmp75 * tmp85
    tmp87 = tmp73 + tmp86
    tl.store(in_out_ptr0 + (x5), tmp87, xmask)
