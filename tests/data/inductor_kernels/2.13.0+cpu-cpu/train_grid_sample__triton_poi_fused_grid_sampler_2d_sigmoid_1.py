
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_grid_sampler_2d_sigmoid_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 576}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_grid_sampler_2d_sigmoid_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 72
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 36)
    x1 = xindex // 36
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (2*x0), xmask, eviction_policy='evict_last')
    tmp9 = tl.load(in_ptr0 + (1 + 2*x0), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1], 3.5, tl.float32)
    tmp2 = tmp0 * tmp1
    tmp3 = tmp2 + tmp1
    tmp4 = libdevice.floor(tmp3)
    tmp5 = tl.full([1], 0.0, tl.float32)
    tmp6 = tmp4 >= tmp5
    tmp7 = tl.full([1], 8.0, tl.float32)
    tmp8 = tmp4 < tmp7
    tmp10 = tmp9 * tmp1
    tmp11 = tmp10 + tmp1
    tmp12 = libdevice.floor(tmp11)
    tmp13 = tmp12 >= tmp5
    tmp14 = tmp12 < tmp7
    tmp15 = tmp13 & tmp14
    tmp16 = tmp8 & tmp15
    tmp17 = tmp6 & tmp16
    tmp18 = tmp12.to(tl.int64)
    tmp19 = tl.full([1], 0, tl.int64)
    tmp20 = tl.where(tmp17, tmp18, tmp19)
    tmp21 = (tl.full([XBLOCK], 8, tl.int32)).to(tl.int32)
    tmp22 = tmp20 + tmp21
    tmp23 = tmp20 < 0
    tmp24 = tl.where(tmp23, tmp22, tmp20)
    tl.device_assert(((0 <= tmp24) & (tmp24 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp24 < 8")
    tmp26 = tmp4.to(tl.int64)
    tmp27 = tl.where(tmp17, tmp26, tmp19)
    tmp28 = tmp27 + tmp21
    tmp29 = tmp27 < 0
    tmp30 = tl.where(tmp29, tmp28, tmp27)
    tl.device_assert(((0 <= tmp30) & (tmp30 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp30 < 8")
    tmp32 = tl.load(in_ptr1 + (tmp30 + 8*tmp24 + 64*x1), xmask, eviction_policy='evict_last')
    tmp33 = tl.full([1], 1.0, tl.float32)
    tmp34 = tmp4 + tmp33
    tmp35 = tmp34 - tmp3
    tmp36 = tmp12 + tmp33
    tmp37 = tmp36 - tmp11
    tmp38 = tmp35 * tmp37
    tmp39 = tl.where(tmp17, tmp38, tmp5)
    tmp40 = tmp32 * tmp39
    tmp41 = tmp34 >= tmp5
    tmp42 = tmp34 < tmp7
    tmp43 = tmp42 & tmp15
    tmp44 = tmp41 & tmp43
    tmp45 = tl.where(tmp44, tmp18, tmp19)
    tmp46 = tmp45 + tmp21
    tmp47 = tmp45 < 0
    tmp48 = tl.where(tmp47, tmp46, tmp45)
    tl.device_assert(((0 <= tmp48) & (tmp48 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp48 < 8")
    tmp50 = tmp34.to(tl.int64)
    tmp51 = tl.where(tmp44, tmp50, tmp19)
    tmp52 = tmp51 + tmp21
    tmp53 = tmp51 < 0
    tmp54 = tl.where(tmp53, tmp52, tmp51)
    tl.device_assert(((0 <= tmp54) & (tmp54 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp54 < 8")
    tmp56 = tl.load(in_ptr1 + (tmp54 + 8*tmp48 + 64*x1), xmask, eviction_policy='evict_last')
    tmp57 = tmp3 - tmp4
    tmp58 = tmp57 * tmp37
    tmp59 = tl.where(tmp44, tmp58, tmp5)
    tmp60 = tmp56 * tmp59
    tmp61 = tmp40 + tmp60
    tmp62 = tmp36 >= tmp5
    tmp63 = tmp36 < tmp7
    tmp64 = tmp62 & tmp63
    tmp65 = tmp8 & tmp64
    tmp66 = tmp6 & tmp65
    tmp67 = tmp36.to(tl.int64)
    tmp68 = tl.where(tmp66, tmp67, tmp19)
    tmp69 = tmp68 + tmp21
    tmp70 = tmp68 < 0
    tmp71 = tl.where(tmp70, tmp69, tmp68)
    tl.device_assert(((0 <= tmp71) & (tmp71 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp71 < 8")
    tmp73 = tl.where(tmp66, tmp26, tmp19)
    tmp74 = tmp73 + tmp21
    tmp75 = tmp73 < 0
    tmp76 = tl.where(tmp75, tmp74, tmp73)
    tl.device_assert(((0 <= tmp76) & (tmp76 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp76 < 8")
    tmp78 = tl.load(in_ptr1 + (tmp76 + 8*tmp71 + 64*x1), xmask, eviction_policy='evict_last')
    tmp79 = tmp11 - tmp12
    tmp80 = tmp35 * tmp79
    tmp81 = tl.where(tmp66, tmp80, tmp5)
    tmp82 = tmp78 * tmp81
    tmp83 = tmp61 + tmp82
    tmp84 = tmp42 & tmp64
    tmp85 = tmp41 & tmp84
    tmp86 = tl.where(tmp85, tmp67, tmp19)
    tmp87 = tmp86 + tmp21
    tmp88 = tmp86 < 0
    tmp89 = tl.where(tmp88, tmp87, tmp86)
    tl.device_assert(((0 <= tmp89) & (tmp89 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp89 < 8")
    tmp91 = tl.where(tmp85, tmp50, tmp19)
    tmp92 = tmp91 + tmp21
    tmp93 = tmp91 < 0
    tmp94 = tl.where(tmp93, tmp92, tmp91)
    tl.device_assert(((0 <= tmp94) & (tmp94 < 8)) | ~(xmask), "index out of bounds: 0 <= tmp94 < 8")
    tmp96 = tl.load(in_ptr1 + (tmp94 + 8*tmp89 + 64*x1), xmask, eviction_policy='evict_last')
    tmp97 = tmp57 * tmp79
    tmp98 = tl.where(tmp85, tmp97, tmp5)
    tmp99 = tmp96 * tmp98
    tmp100 = tmp83 + tmp99
    tmp101 = tl.sigmoid(tmp100)
    tl.store(in_out_ptr0 + (x2), tmp101, xmask)
