
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_mul_reflection_pad2d_backward_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 9, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 2560}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_mul_reflection_pad2d_backward_0(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 8) % 8)
    x0 = (xindex % 8)
    x2 = xindex // 64
    x4 = xindex
    tmp0 = (2 + x1).to(tl.int32)
    tmp1 = tl.full([1], 0, tl.int64)
    tmp2 = tmp0 >= tmp1
    tmp3 = tl.full([1], 11, tl.int64)
    tmp4 = tmp0 <= tmp3
    tmp5 = tmp2 & tmp4
    tmp6 = (2 + x0).to(tl.int32)
    tmp7 = tmp6 >= tmp1
    tmp8 = tmp6 <= tmp3
    tmp9 = tmp7 & tmp8
    tmp10 = tmp5 & tmp9
    tmp11 = tl.load(in_ptr0 + (26 + x0 + 12*x1 + 144*x2), tmp10 & xmask, other=0.0)
    tmp12 = tl.full([1], 2.0, tl.float32)
    tmp13 = tmp11 * tmp12
    tmp14 = tl.full(tmp13.shape, 0.0, tmp13.dtype)
    tmp15 = tl.where(tmp10, tmp13, tmp14)
    tmp16 = (x1).to(tl.int32)
    tmp17 = tl.full([1], 1, tl.int64)
    tmp18 = tmp16 >= tmp17
    tmp19 = tl.full([1], 2, tl.int64)
    tmp20 = tmp16 <= tmp19
    tmp21 = tmp18 & tmp20
    tmp22 = (x0).to(tl.int32)
    tmp23 = tmp22 >= tmp17
    tmp24 = tmp22 <= tmp19
    tmp25 = tmp23 & tmp24
    tmp26 = tmp21 & tmp25
    tmp27 = tl.load(in_ptr0 + (26 + ((-1)*x0) + ((-12)*x1) + 144*x2), tmp26 & xmask, eviction_policy='evict_last', other=0.0)
    tmp28 = tl.full([1], 2.0, tl.float32)
    tmp29 = tmp27 * tmp28
    tmp30 = tl.full(tmp29.shape, 0.0, tmp29.dtype)
    tmp31 = tl.where(tmp26, tmp29, tmp30)
    tmp32 = tmp15 + tmp31
    tmp33 = tmp21 & tmp9
    tmp34 = tl.load(in_ptr0 + (26 + x0 + ((-12)*x1) + 144*x2), tmp33 & xmask, other=0.0)
    tmp35 = tl.full([1], 2.0, tl.float32)
    tmp36 = tmp34 * tmp35
    tmp37 = tl.full(tmp36.shape, 0.0, tmp36.dtype)
    tmp38 = tl.where(tmp33, tmp36, tmp37)
    tmp39 = tmp32 + tmp38
    tmp40 = tl.full([1], 5, tl.int64)
    tmp41 = tmp22 >= tmp40
    tmp42 = tl.full([1], 6, tl.int64)
    tmp43 = tmp22 <= tmp42
    tmp44 = tmp41 & tmp43
    tmp45 = tmp21 & tmp44
    tmp46 = tl.load(in_ptr0 + (40 + ((-1)*x0) + ((-12)*x1) + 144*x2), tmp45 & xmask, eviction_policy='evict_last', other=0.0)
    tmp47 = tl.full([1], 2.0, tl.float32)
    tmp48 = tmp46 * tmp47
    tmp49 = tl.full(tmp48.shape, 0.0, tmp48.dtype)
    tmp50 = tl.where(tmp45, tmp48, tmp49)
    tmp51 = tmp39 + tmp50
    tmp52 = tmp5 & tmp25
    tmp53 = tl.load(in_ptr0 + (26 + ((-1)*x0) + 12*x1 + 144*x2), tmp52 & xmask, eviction_policy='evict_last', other=0.0)
    tmp54 = tl.full([1], 2.0, tl.float32)
    tmp55 = tmp53 * tmp54
    tmp56 = tl.full(tmp55.shape, 0.0, tmp55.dtype)
    tmp57 = tl.where(tmp52, tmp55, tmp56)
    tmp58 = tmp51 + tmp57
    tmp59 = tmp5 & tmp44
    tmp60 = tl.load(in_ptr0 + (40 + ((-1)*x0) + 12*x1 + 144*x2), tmp59 & xmask, eviction_policy='evict_last', other=0.0)
    tmp61 = tl.full([1], 2.0, tl.float32)
    tmp62 = tmp60 * tmp61
    tmp63 = tl.full(tmp62.shape, 0.0, tmp62.dtype)
    tmp64 = tl.where(tmp59, tmp62, tmp63)
    tmp65 = tmp58 + tmp64
    tmp66 = tmp16 >= tmp40
    tmp67 = tmp16 <= tmp42
    tmp68 = tmp66 & tmp67
    tmp69 = tmp68 & tmp25
    tmp70 = tl.load(in_ptr0 + (194 + ((-1)*x0) + ((-12)*x1) + 144*x2), tmp69 & xmask, eviction_policy='evict_last', other=0.0)
    tmp71 = tl.full([1], 2.0, tl.float32)
    tmp72 = tmp70 * tmp71
    tmp73 = tl.full(tmp72.shape, 0.0, tmp72.dtype)
    tmp74 = tl.where(tmp69, tmp72, tmp73)
    tmp75 = tmp65 + tmp74
    tmp76 = tmp68 & tmp9
    tmp77 = tl.load(in_ptr0 + (194 + x0 + ((-12)*x1) + 144*x2), tmp76 & xmask, other=0.0)
    tmp78 = tl.full([1], 2.0, tl.float32)
    tmp79 = tmp77 * tmp78
    tmp80 = tl.full(tmp79.shape, 0.0, tmp79.dtype)
    tmp81 = tl.where(tmp76, tmp79, tmp80)
    tmp82 = tmp75 + tmp81
    tmp83 = tmp68 & tmp44
    tmp84 = tl.load(in_ptr0 + (208 + ((-1)*x0) + ((-12)*x1) + 144*x2), tmp83 & xmask, eviction_policy='evict_last', other=0.0)
    tmp85 = tl.full([1], 2.0, tl.float32)
    tmp86 = tmp84 * tmp85
    tmp87 = tl.full(tmp86.shape, 0.0, tmp86.dtype)
    tmp88 = tl.where(tmp83, tmp86, tmp87)
    tmp89 = tmp82 + tmp88
    tl.store(in_out_ptr0 + (x4), tmp89, xmask)
