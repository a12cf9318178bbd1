
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr3': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0', 'mutated_arg_names': ['in_out_ptr3'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 0, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 27648}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_mul_sub_view_0(in_out_ptr3, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 3456
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = ((xindex // 144) % 12)
    x1 = ((xindex // 12) % 12)
    x0 = (xindex % 12)
    x3 = xindex // 1728
    x5 = xindex
    tmp0 = x2
    tmp1 = tmp0.to(tl.float32)
    tmp2 = tl.full([1], 0.5, tl.float32)
    tmp3 = tmp1 + tmp2
    tmp4 = tmp3 * tmp2
    tmp5 = tmp4 - tmp2
    tmp6 = tl.full([1], 0.0, tl.float32)
    tmp7 = triton_helpers.maximum(tmp5, tmp6)
    tmp8 = tmp7.to(tl.int32)
    tmp9 = tl.full([1], 1, tl.int64)
    tmp10 = tmp8 + tmp9
    tmp11 = tl.full([1], 5, tl.int64)
    tmp12 = triton_helpers.minimum(tmp10, tmp11)
    tmp13 = x1
    tmp14 = tmp13.to(tl.float32)
    tmp15 = tmp14 + tmp2
    tmp16 = tmp15 * tmp2
    tmp17 = tmp16 - tmp2
    tmp18 = triton_helpers.maximum(tmp17, tmp6)
    tmp19 = tmp18.to(tl.int32)
    tmp20 = tmp19 + tmp9
    tmp21 = triton_helpers.minimum(tmp20, tmp11)
    tmp22 = x0
    tmp23 = tmp22.to(tl.float32)
    tmp24 = tmp23 + tmp2
    tmp25 = tmp24 * tmp2
    tmp26 = tmp25 - tmp2
    tmp27 = triton_helpers.maximum(tmp26, tmp6)
    tmp28 = tmp27.to(tl.int32)
    tmp29 = tmp28 + tmp9
    tmp30 = triton_helpers.minimum(tmp29, tmp11)
    tmp31 = tl.load(in_ptr0 + (tmp30 + 6*tmp21 + 36*tmp12 + 216*x3), xmask, eviction_policy='evict_last')
    tmp32 = tl.load(in_ptr0 + (tmp28 + 6*tmp21 + 36*tmp12 + 216*x3), xmask, eviction_policy='evict_last')
    tmp33 = tmp31 - tmp32
    tmp34 = tmp28.to(tl.float32)
    tmp35 = tmp27 - tmp34
    tmp36 = triton_helpers.maximum(tmp35, tmp6)
    tmp37 = tl.full([1], 1.0, tl.float32)
    tmp38 = triton_helpers.minimum(tmp36, tmp37)
    tmp39 = tmp33 * tmp38
    tmp40 = tmp32 + tmp39
    tmp41 = tl.load(in_ptr0 + (tmp30 + 6*tmp19 + 36*tmp12 + 216*x3), xmask, eviction_policy='evict_last')
    tmp42 = tl.load(in_ptr0 + (tmp28 + 6*tmp19 + 36*tmp12 + 216*x3), xmask, eviction_policy='evict_last')
    tmp43 = tmp41 - tmp42
    tmp44 = tmp43 * tmp38
    tmp45 = tmp42 + tmp44
    tmp46 = tl.load(in_ptr0 + (tmp30 + 6*tmp21 + 36*tmp8 + 216*x3), xmask, eviction_policy='evict_last')
    tmp47 = tl.load(in_ptr0 + (tmp28 + 6*tmp21 + 36*tmp8 + 216*x3), xmask, eviction_policy='evict_last')
    tmp48 = tmp46 - tmp47
    tmp49 = tmp48 * tmp38
    tmp50 = tmp47 + tmp49
    tmp51 = tl.load(in_ptr0 + (tmp30 + 6*tmp19 + 36*tmp8 + 216*x3), xmask, eviction_policy='evict_last')
    tmp52 = tl.load(in_ptr0 + (tmp28 + 6*tmp19 + 36*tmp8 + 216*x3), xmask, eviction_policy='evict_last')
    tmp53 = tmp51 - tmp52
    tmp54 = tmp53 * tmp38
    tmp55 = tmp52 + tmp54
    tmp56 = tmp50 - tmp55
    tmp57 = tmp19.to(tl.float32)
    tmp58 = tmp18 - tmp57
    tmp59 = triton_helpers.maximum(tmp58, tmp6)
    tmp60 = triton_helpers.minimum(tmp59, tmp37)
    tmp61 = tmp56 * tmp60
    tmp62 = tmp40 - tmp45
    tmp63 = tmp62 * tmp60
    tmp64 = tmp45 + tmp63
    tmp65 = tmp55 + tmp61
    tmp66 = tmp64 - tmp65
    tmp67 = tmp8.to(tl.float32)
    tmp68 = tmp7 - tmp67
    tmp69 = triton_helpers.maximum(tmp68, tmp6)
    tmp70 = triton_helpers.minimum(tmp69, tmp37)
    tmp71 = tmp66 * tmp70
    tmp72 = tmp65 + tmp71
    tl.store(in_out_ptr3 + (x5), tmp72, xmask)
