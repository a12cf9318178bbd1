
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 256}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_grid_sampler_2d_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 1536}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_grid_sampler_2d_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 192
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 64)
    x1 = xindex // 64
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (2*x0), xmask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr0 + (1 + 2*x0), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1], 6.0, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tl.full([1], 5.5, tl.float32)
    tmp4 = tmp2 + tmp3
    tmp5 = libdevice.floor(tmp4)
    tmp6 = tl.full([1], 0.0, tl.float32)
    tmp7 = tmp5 >= tmp6
    tmp8 = tl.full([1], 12.0, tl.float32)
    tmp9 = tmp5 < tmp8
    tmp11 = tmp10 * tmp1
    tmp12 = tmp11 + tmp3
    tmp13 = libdevice.floor(tmp12)
    tmp14 = tmp13 >= tmp6
    tmp15 = tmp13 < tmp8
    tmp16 = tmp14 & tmp15
    tmp17 = tmp9 & tmp16
    tmp18 = tmp7 & tmp17
    tmp19 = tmp13.to(tl.int64)
    tmp20 = tl.full([1], 0, tl.int64)
    tmp21 = tl.where(tmp18, tmp19, tmp20)
    tmp22 = (tl.full([XBLOCK], 12, tl.int32)).to(tl.int32)
    tmp23 = tmp21 + tmp22
    tmp24 = tmp21 < 0
    tmp25 = tl.where(tmp24, tmp23, tmp21)
    tl.device_assert(((0 <= tmp25) & (tmp25 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp25 < 12")
    tmp27 = tmp5.to(tl.int64)
    tmp28 = tl.where(tmp18, tmp27, tmp20)
    tmp29 = tmp28 + tmp22
    tmp30 = tmp28 < 0
    tmp31 = tl.where(tmp30, tmp29, tmp28)
    tl.device_assert(((0 <= tmp31) & (tmp31 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp31 < 12")
    tmp33 = tl.load(in_ptr1 + (tmp31 + 12*tmp25 + 144*x1), xmask, eviction_policy='evict_last')
    tmp34 = tl.full([1], 1.0, tl.float32)
    tmp35 = tmp5 + tmp34
    tmp36 = tmp35 - tmp4
    tmp37 = tmp13 + tmp34
    tmp38 = tmp37 - tmp12
    tmp39 = tmp36 * tmp38
    tmp40 = tl.where(tmp18, tmp39, tmp6)
    tmp41 = tmp33 * tmp40
    tmp42 = tmp35 >= tmp6
    tmp43 = tmp35 < tmp8
    tmp44 = tmp43 & tmp16
    tmp45 = tmp42 & tmp44
    tmp46 = tl.where(tmp45, tmp19, tmp20)
    tmp47 = tmp46 + tmp22
    tmp48 = tmp46 < 0
    tmp49 = tl.where(tmp48, tmp47, tmp46)
    tl.device_assert(((0 <= tmp49) & (tmp49 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp49 < 12")
    tmp51 = tmp35.to(tl.int64)
    tmp52 = tl.where(tmp45, tmp51, tmp20)
    tmp53 = tmp52 + tmp22
    tmp54 = tmp52 < 0
    tmp55 = tl.where(tmp54, tmp53, tmp52)
    tl.device_assert(((0 <= tmp55) & (tmp55 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp55 < 12")
    tmp57 = tl.load(in_ptr1 + (tmp55 + 12*tmp49 + 144*x1), xmask, eviction_policy='evict_last')
    tmp58 = tmp4 - tmp5
    tmp59 = tmp58 * tmp38
    tmp60 = tl.where(tmp45, tmp59, tmp6)
    tmp61 = tmp57 * tmp60
    tmp62 = tmp41 + tmp61
    tmp63 = tmp37 >= tmp6
    tmp64 = tmp37 < tmp8
    tmp65 = tmp63 & tmp64
    tmp66 = tmp9 & tmp65
    tmp67 = tmp7 & tmp66
    tmp68 = tmp37.to(tl.int64)
    tmp69 = tl.where(tmp67, tmp68, tmp20)
    tmp70 = tmp69 + tmp22
    tmp71 = tmp69 < 0
    tmp72 = tl.where(tmp71, tmp70, tmp69)
    tl.device_assert(((0 <= tmp72) & (tmp72 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp72 < 12")
    tmp74 = tl.where(tmp67, tmp27, tmp20)
    tmp75 = tmp74 + tmp22
    tmp76 = tmp74 < 0
    tmp77 = tl.where(tmp76, tmp75, tmp74)
    tl.device_assert(((0 <= tmp77) & (tmp77 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp77 < 12")
    tmp79 = tl.load(in_ptr1 + (tmp77 + 12*tmp72 + 144*x1), xmask, eviction_policy='evict_last')
    tmp80 = tmp12 - tmp13
    tmp81 = tmp36 * tmp80
    tmp82 = tl.where(tmp67, tmp81, tmp6)
    tmp83 = tmp79 * tmp82
    tmp84 = tmp62 + tmp83
    tmp85 = tmp43 & tmp65
    tmp86 = tmp42 & tmp85
    tmp87 = tl.where(tmp86, tmp68, tmp20)
    tmp88 = tmp87 + tmp22
    tmp89 = tmp87 < 0
    tmp90 = tl.where(tmp89, tmp88, tmp87)
    tl.device_assert(((0 <= tmp90) & (tmp90 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp90 < 12")
    tmp92 = tl.where(tmp86, tmp51, tmp20)
    tmp93 = tmp92 + tmp22
    tmp94 = tmp92 < 0
    tmp95 = tl.where(tmp94, tmp93, tmp92)
    tl.device_assert(((0 <= tmp95) & (tmp95 < 12)) | ~(xmask), "index out of bounds: 0 <= tmp95 < 12")
    tmp97 = tl.load(in_ptr1 + (tmp95 + 12*tmp90 + 144*x1), xmask, eviction_policy='evict_last')
    tmp98 = tmp58 * tmp80
    tmp99 = tl.where(tmp86, tmp98, tmp6)
    tmp100 = tmp97 * tmp99
    tmp101 = tmp84 + tmp100
    tl.store(in_out_ptr0 + (x2), tmp101, xmask)
