
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 12800}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 1600
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 20) % 20)
    x0 = (xindex % 20)
    x2 = xindex // 400
    x4 = xindex
    tmp0 = (x1).to(tl.float32)
    tmp1 = tl.full([1], 0.5789473684210527, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.full([1], 0.0, tl.float32)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp5 = tmp4.to(tl.int32)
    tmp6 = (x0).to(tl.float32)
    tmp7 = tmp6 * tmp1
    tmp8 = triton_helpers.maximum(tmp7, tmp3)
    tmp9 = tmp8.to(tl.int32)
    tmp10 = tl.load(in_ptr0 + (tmp9 + 12*tmp5 + 144*x2), xmask, eviction_policy='evict_last')
    tmp11 = tl.full([1], 1, tl.int64)
    tmp12 = tmp9 + tmp11
    tmp13 = tl.full([1], 11, tl.int64)
    tmp14 = triton_helpers.minimum(tmp12, tmp13)
    tmp15 = tl.load(in_ptr0 + (tmp14 + 12*tmp5 + 144*x2), xmask, eviction_policy='evict_last')
    tmp16 = tmp15 - tmp10
    tmp17 = (tmp6).to(tl.float32)
    tmp18 = tmp17 * tmp1
    tmp19 = triton_helpers.maximum(tmp18, tmp3)
    tmp20 = tmp19.to(tl.int32)
    tmp21 = tmp20.to(tl.float32)
    tmp22 = tmp19 - tmp21
    tmp23 = triton_helpers.maximum(tmp22, tmp3)
    tmp24 = tl.full([1], 1.0, tl.float32)
    tmp25 = triton_helpers.minimum(tmp23, tmp24)
    tmp26 = tmp16 * tmp25
    tmp27 = tmp10 + tmp26
    tmp28 = tmp5 + tmp11
    tmp29 = triton_helpers.minimum(tmp28, tmp13)
    tmp30 = tl.load(in_ptr0 + (tmp9 + 12*tmp29 + 144*x2), xmask, eviction_policy='evict_last')
    tmp31 = tl.load(in_ptr0 + (tmp14 + 12*tmp29 + 144*x2), xmask, eviction_policy='evict_last')
    tmp32 = tmp31 - tmp30
    tmp33 = tmp32 * tmp25
    tmp34 = tmp30 + tmp33
    tmp35 = tmp34 - tmp27
    tmp36 = (tmp0).to(tl.float32)
    tmp37 = tmp36 * tmp1
    tmp38 = triton_helpers.maximum(tmp37, tmp3)
    tmp39 = tmp38.to(tl.int32)
    tmp40 = tmp39.to(tl.float32)
    tmp41 = tmp38 - tmp40
    tmp42 = triton_helpers.maximum(tmp41, tmp3)
    tmp43 = triton_helpers.minimum(tmp42, tmp24)
    tmp44 = tmp35 * tmp43
    tmp45 = tmp27 + tmp44
    tl.store(out_ptr0 + (x4), tmp45, xmask)
