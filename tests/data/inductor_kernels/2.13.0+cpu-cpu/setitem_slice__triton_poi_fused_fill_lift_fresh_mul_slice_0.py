
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
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_fill_lift_fresh_mul_slice_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 24576}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_fill_lift_fresh_mul_slice_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = xindex // 64
    x0 = (xindex % 64)
    x2 = xindex
    tmp136 = tl.load(in_ptr0 + (x2), xmask)
    tmp0 = (x1).to(tl.int64)
    tmp1 = (tmp0).to(tl.int64)
    tmp2 = tl.full([1], 4, tl.int64)
    tmp3 = tmp1 >= tmp2
    tmp4 = tl.full([1], 10, tl.int64)
    tmp5 = tmp1 < tmp4
    tmp6 = tmp3 & tmp5
    tmp7 = (x0).to(tl.int64)
    tmp8 = (tmp7).to(tl.int64)
    tmp9 = tl.full([1], 20, tl.int64)
    tmp10 = tmp8 >= tmp9
    tmp11 = tl.full([1], 30, tl.int64)
    tmp12 = tmp8 < tmp11
    tmp13 = tmp10 & tmp12
    tmp14 = tmp13 & tmp6
    tmp15 = (x1).to(tl.int64)
    tmp16 = (tmp15).to(tl.int64)
    tmp17 = tl.full([1], 4, tl.int64)
    tmp18 = tmp16 >= tmp17
    tmp19 = tl.full([1], 10, tl.int64)
    tmp20 = tmp16 < tmp19
    tmp21 = tmp18 & tmp20
    tmp22 = tmp21 & tmp14
    tmp23 = (x0).to(tl.int64)
    tmp24 = (tmp23).to(tl.int64)
    tmp25 = tl.full([1], 20, tl.int64)
    tmp26 = tmp24 >= tmp25
    tmp27 = tl.full([1], 30, tl.int64)
    tmp28 = tmp24 < tmp27
    tmp29 = tmp26 & tmp28
    tmp30 = tmp29 & tmp22
    tmp31 = (x0).to(tl.int64)
    tmp32 = (tmp31).to(tl.int64)
    tmp33 = tl.full([1], 8, tl.int64)
    tmp34 = tmp32 < tmp33
    tmp35 = tmp34 & tmp30
    tmp36 = tl.full([1], 0.0, tl.float32)
    tmp37 = tl.full(tmp36.shape, 0.0, tmp36.dtype)
    tmp38 = tl.where(tmp35, tmp36, tmp37)
    tmp39 = tl.load(in_ptr0 + (x2), tmp30 & xmask, other=0.0)
    tmp40 = tl.where(tmp34, tmp38, tmp39)
    tmp41 = tl.full([1], 2.0, tl.float32)
    tmp42 = tmp40 * tmp41
    tmp43 = tl.full(tmp42.shape, 0.0, tmp42.dtype)
    tmp44 = tl.where(tmp30, tmp42, tmp43)
    tmp45 = tl.full([1], 8, tl.int64)
    tmp46 = tmp24 < tmp45
    tmp47 = tmp46 & tmp22
    tmp48 = tl.full([1], 0.0, tl.float32)
    tmp49 = tl.full(tmp48.shape, 0.0, tmp48.dtype)
    tmp50 = tl.where(tmp47, tmp48, tmp49)
    tmp51 = tl.load(in_ptr0 + (x2), tmp22 & xmask, other=0.0)
    tmp52 = tl.where(tmp46, tmp50, tmp51)
    tmp53 = tl.where(tmp29, tmp44, tmp52)
    tmp54 = tl.full(tmp53.shape, 0.0, tmp53.dtype)
    tmp55 = tl.where(tmp22, tmp53, tmp54)
    tmp56 = (x0).to(tl.int64)
    tmp57 = (tmp56).to(tl.int64)
    tmp58 = tl.full([1], 8, tl.int64)
    tmp59 = tmp57 < tmp58
    tmp60 = tmp59 & tmp14
    tmp61 = tl.full([1], 0.0, tl.float32)
    tmp62 = tl.full(tmp61.shape, 0.0, tmp61.dtype)
    tmp63 = tl.where(tmp60, tmp61, tmp62)
    tmp64 = tl.load(in_ptr0 + (x2), tmp14 & xmask, other=0.0)
    tmp65 = tl.where(tmp59, tmp63, tmp64)
    tmp66 = tl.where(tmp21, tmp55, tmp65)
    tmp67 = tl.full(tmp66.shape, 0.0, tmp66.dtype)
    tmp68 = tl.where(tmp14, tmp66, tmp67)
    tmp69 = (x1).to(tl.int64)
    tmp70 = (tmp69).to(tl.int64)
    tmp71 = tl.full([1], 4, tl.int64)
    tmp72 = tmp70 >= tmp71
    tmp73 = tl.full([1], 10, tl.int64)
    tmp74 = tmp70 < tmp73
    tmp75 = tmp72 & tmp74
    tmp76 = tmp75 & tmp6
    tmp77 = (x0).to(tl.int64)
    tmp78 = (tmp77).to(tl.int64)
    tmp79 = tl.full([1], 20, tl.int64)
    tmp80 = tmp78 >= tmp79
    tmp81 = tl.full([1], 30, tl.int64)
    tmp82 = tmp78 < tmp81
    tmp83 = tmp80 & tmp82
    tmp84 = tmp83 & tmp76
    tmp85 = (x0).to(tl.int64)
    tmp86 = (tmp85).to(tl.int64)
    tmp87 = tl.full([1], 8, tl.int64)
    tmp88 = tmp86 < tmp87
    tmp89 = tmp88 & tmp84
    tmp90 = tl.full([1], 0.0, tl.float32)
    tmp91 = tl.full(tmp90.shape, 0.0, tmp90.dtype)
    tmp92 = tl.where(tmp89, tmp90, tmp91)
    tmp93 = tl.load(in_ptr0 + (x2), tmp84 & xmask, other=0.0)
    tmp94 = tl.where(tmp88, tmp92, tmp93)
    tmp95 = tl.full([1], 2.0, tl.float32)
    tmp96 = tmp94 * tmp95
    tmp97 = tl.full(tmp96.shape, 0.0, tmp96.dtype)
    tmp98 = tl.where(tmp84, tmp96, tmp97)
    tmp99 = tl.full([1], 8, tl.int64)
    tmp100 = tmp78 < tmp99
    tmp101 = tmp100 & tmp76
    tmp102 = tl.full([1], 0.0, tl.float32)
    tmp103 = tl.full(tmp102.shape, 0.0, tmp102.dtype)
    tmp104 = tl.where(tmp101, tmp102, tmp103)
    tmp105 = tl.load(in_ptr0 + (x2), tmp76 & xmask, other=0.0)
    tmp106 = tl.where(tmp100, tmp104, tmp105)
    tmp107 = tl.where(tmp83, tmp98, tmp106)
    tmp108 = tl.full(tmp107.shape, 0.0, tmp107.dtype)
    tmp109 = tl.where(tmp76, tmp107, tmp108)
    tmp110 = tl.full([1], 8, tl.int64)
    tmp111 = tmp8 < tmp110
    tmp112 = tmp111 & tmp6
    tmp113 = tl.full([1], 0.0, tl.float32)
    tmp114 = tl.full(tmp113.shape, 0.0, tmp113.dtype)
    tmp115 = tl.where(tmp112, tmp113, tmp114)
    tmp116 = tl.load(in_ptr0 + (x2), tmp6 & xmask, other=0.0)
    tmp117 = tl.where(tmp111, tmp115, tmp116)
    tmp118 = tl.where(tmp75, tmp109, tmp117)
    tmp119 = tl.where(tmp13, tmp68, tmp118)
    tmp120 = tl.full(tmp119.shape, 0.0, tmp119.dtype)
    tmp121 = tl.where(tmp6, tmp119, tmp120)
    tmp122 = tl.full([1], 2.0, tl.float32)
    tmp123 = tmp65 * tmp122
    tmp124 = tl.full(tmp123.shape, 0.0, tmp123.dtype)
    tmp125 = tl.where(tmp14, tmp123, tmp124)
    tmp126 = tl.where(tmp13, tmp125, tmp117)
    tmp127 = tl.full(tmp126.shape, 0.0, tmp126.dtype)
    tmp128 = tl.where(tmp6, tmp126, tmp127)
    tmp129 = (x0).to(tl.int64)
    tmp130 = (tmp129).to(tl.int64)
    tmp131 = tl.full([1], 8, tl.int64)
    tmp132 = tmp130 < tmp131
    tmp133 = tl.full([1], 0.0, tl.float32)
    tmp134 = tl.full(tmp133.shape, 0.0, tmp133.dtype)
    tmp135 = tl.where(tmp132, tmp133, tmp134)
    tmp137 = tl.where(tmp132, tmp135, tmp136)
    tmp138 = tl.where(tmp6, tmp128, tmp137)
    tmp139 = tl.where(tmp6, tmp121, tmp138)
    tl.store(out_ptr0 + (x2), tmp139, xmask)
