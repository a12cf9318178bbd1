
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
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_clone_mul_sub_view_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 16384}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_clone_mul_sub_view_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex // 128
    x1 = ((xindex // 8) % 16)
    x0 = (xindex % 8)
    x4 = xindex
    tmp0 = (x2).to(tl.float32)
    tmp1 = tl.full([1], 0.5, tl.float32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp2 * tmp1
    tmp4 = tmp3 - tmp1
    tmp5 = tl.full([1], 0.0, tl.float32)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tmp7 = tmp6.to(tl.int32)
    tmp8 = (x1).to(tl.float32)
    tmp9 = tmp8 + tmp1
    tmp10 = tmp9 * tmp1
    tmp11 = tmp10 - tmp1
    tmp12 = triton_helpers.maximum(tmp11, tmp5)
    tmp13 = tmp12.to(tl.int32)
    tmp14 = tl.load(in_ptr0 + (x0 + 8*tmp13 + 64*tmp7), xmask)
    tmp15 = tl.full([1], 1, tl.int64)
    tmp16 = tmp13 + tmp15
    tmp17 = tl.full([1], 7, tl.int64)
    tmp18 = triton_helpers.minimum(tmp16, tmp17)
    tmp19 = tl.load(in_ptr0 + (x0 + 8*tmp18 + 64*tmp7), xmask)
    tmp20 = tmp19 - tmp14
    tmp21 = (tmp8).to(tl.float32)
    tmp22 = tmp21 + tmp1
    tmp23 = tmp22 * tmp1
    tmp24 = tmp23 - tmp1
    tmp25 = triton_helpers.maximum(tmp24, tmp5)
    tmp26 = tmp25.to(tl.int32)
    tmp27 = tmp26.to(tl.float32)
    tmp28 = tmp25 - tmp27
    tmp29 = triton_helpers.maximum(tmp28, tmp5)
    tmp30 = tl.full([1], 1.0, tl.float32)
    tmp31 = triton_helpers.minimum(tmp29, tmp30)
    tmp32 = tmp20 * tmp31
    tmp33 = tmp14 + tmp32
    tmp34 = tmp7 + tmp15
    tmp35 = triton_helpers.minimum(tmp34, tmp17)
    tmp36 = tl.load(in_ptr0 + (x0 + 8*tmp13 + 64*tmp35), xmask)
    tmp37 = tl.load(in_ptr0 + (x0 + 8*tmp18 + 64*tmp35), xmask)
    tmp38 = tmp37 - tmp36
    tmp39 = tmp38 * tmp31
    tmp40 = tmp36 + tmp39
    tmp41 = tmp40 - tmp33
    tmp42 = (tmp0).to(tl.float32)
    tmp43 = tmp42 + tmp1
    tmp44 = tmp43 * tmp1
    tmp45 = tmp44 - tmp1
    tmp46 = triton_helpers.maximum(tmp45, tmp5)
    tmp47 = tmp46.to(tl.int32)
    tmp48 = tmp47.to(tl.float32)
    tmp49 = tmp46 - tmp48
    tmp50 = triton_helpers.maximum(tmp49, tmp5)
    tmp51 = triton_helpers.minimum(tmp50, tmp30)
    tmp52 = tmp41 * tmp51
    tmp53 = tmp33 + tmp52
    tl.store(out_ptr0 + (x4), tmp53, xmask)
