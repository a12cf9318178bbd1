
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_copy_slice_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 8, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 66432}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_copy_slice_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2400
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 20)
    x1 = ((xindex // 20) % 20)
    x2 = xindex // 400
    x4 = xindex
    tmp0 = (x0).to(tl.int64)
    tmp1 = (tmp0).to(tl.int64)
    tmp2 = tl.full([1], 18, tl.int64)
    tmp3 = tmp1 >= tmp2
    tmp4 = ((-16) + x0).to(tl.int64)
    tmp5 = (tmp4).to(tl.int64)
    tmp6 = tl.full([1], 2, tl.int64)
    tmp7 = tmp5 < tmp6
    tmp8 = tmp7 & tmp3
    tmp9 = (x0).to(tl.int64)
    tmp10 = (tmp9).to(tl.int64)
    tmp11 = tl.full([1], 2, tl.int64)
    tmp12 = tmp10 >= tmp11
    tmp13 = tl.full([1], 18, tl.int64)
    tmp14 = tmp10 < tmp13
    tmp15 = tmp12 & tmp14
    tmp16 = tmp15 & tmp8
    tmp17 = (x1).to(tl.int64)
    tmp18 = (tmp17).to(tl.int64)
    tmp19 = tl.full([1], 2, tl.int64)
    tmp20 = tmp18 >= tmp19
    tmp21 = tl.full([1], 18, tl.int64)
    tmp22 = tmp18 < tmp21
    tmp23 = tmp20 & tmp22
    tmp24 = tmp23 & tmp16
    tmp25 = tl.load(in_ptr0 + ((-34) + x0 + 16*x1 + 256*x2), tmp24 & xmask, other=0.0)
    tmp26 = tl.load(in_ptr1 + (x4), tmp16 & xmask, other=0.0)
    tmp27 = tl.where(tmp23, tmp25, tmp26)
    tmp28 = tl.full(tmp27.shape, 0.0, tmp27.dtype)
    tmp29 = tl.where(tmp16, tmp27, tmp28)
    tmp30 = tl.full([1], float("nan"), tl.float32)
    tmp31 = tl.where(tmp15, tmp29, tmp30)
    tmp32 = tl.full(tmp31.shape, 0.0, tmp31.dtype)
    tmp33 = tl.where(tmp8, tmp31, tmp32)
    tmp34 = tmp5 >= tmp6
    tmp35 = tl.full([1], 18, tl.int64)
    tmp36 = tmp5 < tmp35
    tmp37 = tmp34 & tmp36
    tmp38 = tmp37 & tmp3
    tmp39 = (x1).to(tl.int64)
    tmp40 = (tmp39).to(tl.int64)
    tmp41 = tl.full([1], 2, tl.int64)
    tmp42 = tmp40 >= tmp41
    tmp43 = tl.full([1], 18, tl.int64)
    tmp44 = tmp40 < tmp43
    tmp45 = tmp42 & tmp44
    tmp46 = tmp45 & tmp38
    tmp47 = tl.load(in_ptr0 + ((-50) + x0 + 16*x1 + 256*x2), tmp46 & xmask, other=0.0)
    tmp48 = tl.load(in_ptr1 + ((-16) + x4), tmp38 & xmask, other=0.0)
    tmp49 = tl.where(tmp45, tmp47, tmp48)
    tmp50 = tl.full(tmp49.shape, 0.0, tmp49.dtype)
    tmp51 = tl.where(tmp38, tmp49, tmp50)
    tmp52 = tl.full([1], float("nan"), tl.float32)
    tmp53 = tl.where(tmp37, tmp51, tmp52)
    tmp54 = tl.where(tmp7, tmp33, tmp53)
    tmp55 = tl.full(tmp54.shape, 0.0, tmp54.dtype)
    tmp56 = tl.where(tmp3, tmp54, tmp55)
    tmp57 = tl.full([1], 2, tl.int64)
    tmp58 = tmp1 < tmp57
    tmp59 = (16 + x0).to(tl.int64)
    tmp60 = (tmp59).to(tl.int64)
    tmp61 = tl.full([1], 2, tl.int64)
    tmp62 = tmp60 >= tmp61
    tmp63 = tl.full([1], 18, tl.int64)
    tmp64 = tmp60 < tmp63
    tmp65 = tmp62 & tmp64
    tmp66 = tmp65 & tmp58
    tmp67 = (x1).to(tl.int64)
    tmp68 = (tmp67).to(tl.int64)
    tmp69 = tl.full([1], 2, tl.int64)
    tmp70 = tmp68 >= tmp69
    tmp71 = tl.full([1], 18, tl.int64)
    tmp72 = tmp68 < tmp71
    tmp73 = tmp70 & tmp72
    tmp74 = tmp73 & tmp66
    tmp75 = tl.load(in_ptr0 + ((-18) + x0 + 16*x1 + 256*x2), tmp74 & xmask, other=0.0)
    tmp76 = tl.load(in_ptr1 + (16 + x4), tmp66 & xmask, other=0.0)
    tmp77 = tl.where(tmp73, tmp75, tmp76)
    tmp78 = tl.full(tmp77.shape, 0.0, tmp77.dtype)
    tmp79 = tl.where(tmp66, tmp77, tmp78)
    tmp80 = tl.full([1], float("nan"), tl.float32)
    tmp81 = tl.where(tmp65, tmp79, tmp80)
    tmp82 = tl.full(tmp81.shape, 0.0, tmp81.dtype)
    tmp83 = tl.where(tmp58, tmp81, tmp82)
    tmp84 = tmp1 >= tmp57
    tmp85 = tmp1 < tmp2
    tmp86 = tmp84 & tmp85
    tmp87 = (x1).to(tl.int64)
    tmp88 = (tmp87).to(tl.int64)
    tmp89 = tl.full([1], 2, tl.int64)
    tmp90 = tmp88 >= tmp89
    tmp91 = tl.full([1], 18, tl.int64)
    tmp92 = tmp88 < tmp91
    tmp93 = tmp90 & tmp92
    tmp94 = tmp93 & tmp86
    tmp95 = tl.load(in_ptr0 + ((-34) + x0 + 16*x1 + 256*x2), tmp94 & xmask, other=0.0)
    tmp96 = tl.load(in_ptr1 + (x4), tmp86 & xmask, other=0.0)
    tmp97 = tl.where(tmp93, tmp95, tmp96)
    tmp98 = tl.full(tmp97.shape, 0.0, tmp97.dtype)
    tmp99 = tl.where(tmp86, tmp97, tmp98)
    tmp100 = tl.full([1], float("nan"), tl.float32)
    tmp101 = tl.where(tmp86, tmp99, tmp100)
    tmp102 = tl.where(tmp58, tmp83, tmp101)
    tmp103 = tl.where(tmp3, tmp56, tmp102)
    tl.store(out_ptr0 + (x4), tmp103, xmask)
