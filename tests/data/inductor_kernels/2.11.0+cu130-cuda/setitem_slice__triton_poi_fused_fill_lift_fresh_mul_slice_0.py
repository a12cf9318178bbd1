
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_fill_lift_fresh_mul_slice_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 7, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 24576}},
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
    tmp126 = tl.load(in_ptr0 + (x2), xmask)
    tmp0 = x1
    tmp1 = tl.full([1], 4, tl.int64)
    tmp2 = tmp0 >= tmp1
    tmp3 = tl.full([1], 10, tl.int64)
    tmp4 = tmp0 < tmp3
    tmp5 = tmp2 & tmp4
    tmp6 = x0
    tmp7 = tl.full([1], 20, tl.int64)
    tmp8 = tmp6 >= tmp7
    tmp9 = tl.full([1], 30, tl.int64)
    tmp10 = tmp6 < tmp9
    tmp11 = tmp8 & tmp10
    tmp12 = tmp11 & tmp5
    tmp13 = x1
    tmp14 = tl.full([1], 4, tl.int64)
    tmp15 = tmp13 >= tmp14
    tmp16 = tl.full([1], 10, tl.int64)
    tmp17 = tmp13 < tmp16
    tmp18 = tmp15 & tmp17
    tmp19 = tmp18 & tmp12
    tmp20 = x0
    tmp21 = tl.full([1], 20, tl.int64)
    tmp22 = tmp20 >= tmp21
    tmp23 = tl.full([1], 30, tl.int64)
    tmp24 = tmp20 < tmp23
    tmp25 = tmp22 & tmp24
    tmp26 = tmp25 & tmp19
    tmp27 = x0
    tmp28 = tl.full([1], 8, tl.int64)
    tmp29 = tmp27 < tmp28
    tmp30 = tmp29 & tmp26
    tmp31 = tl.full([1], 0.0, tl.float32)
    tmp32 = tl.full(tmp31.shape, 0.0, tmp31.dtype)
    tmp33 = tl.where(tmp30, tmp31, tmp32)
    tmp34 = tl.load(in_ptr0 + (x2), tmp26 & xmask, other=0.0)
    tmp35 = tl.where(tmp29, tmp33, tmp34)
    tmp36 = tl.full([1], 2.0, tl.float32)
    tmp37 = tmp35 * tmp36
    tmp38 = tl.full(tmp37.shape, 0.0, tmp37.dtype)
    tmp39 = tl.where(tmp26, tmp37, tmp38)
    tmp40 = tl.full([1], 8, tl.int64)
    tmp41 = tmp20 < tmp40
    tmp42 = tmp41 & tmp19
    tmp43 = tl.full([1], 0.0, tl.float32)
    tmp44 = tl.full(tmp43.shape, 0.0, tmp43.dtype)
    tmp45 = tl.where(tmp42, tmp43, tmp44)
    tmp46 = tl.load(in_ptr0 + (x2), tmp19 & xmask, other=0.0)
    tmp47 = tl.where(tmp41, tmp45, tmp46)
    tmp48 = tl.where(tmp25, tmp39, tmp47)
    tmp49 = tl.full(tmp48.shape, 0.0, tmp48.dtype)
    tmp50 = tl.where(tmp19, tmp48, tmp49)
    tmp51 = x0
    tmp52 = tl.full([1], 8, tl.int64)
    tmp53 = tmp51 < tmp52
    tmp54 = tmp53 & tmp12
    tmp55 = tl.full([1], 0.0, tl.float32)
    tmp56 = tl.full(tmp55.shape, 0.0, tmp55.dtype)
    tmp57 = tl.where(tmp54, tmp55, tmp56)
    tmp58 = tl.load(in_ptr0 + (x2), tmp12 & xmask, other=0.0)
    tmp59 = tl.where(tmp53, tmp57, tmp58)
    tmp60 = tl.where(tmp18, tmp50, tmp59)
    tmp61 = tl.full(tmp60.shape, 0.0, tmp60.dtype)
    tmp62 = tl.where(tmp12, tmp60, tmp61)
    tmp63 = x1
    tmp64 = tl.full([1], 4, tl.int64)
    tmp65 = tmp63 >= tmp64
    tmp66 = tl.full([1], 10, tl.int64)
    tmp67 = tmp63 < tmp66
    tmp68 = tmp65 & tmp67
    tmp69 = tmp68 & tmp5
    tmp70 = x0
    tmp71 = tl.full([1], 20, tl.int64)
    tmp72 = tmp70 >= tmp71
    tmp73 = tl.full([1], 30, tl.int64)
    tmp74 = tmp70 < tmp73
    tmp75 = tmp72 & tmp74
    tmp76 = tmp75 & tmp69
    tmp77 = x0
    tmp78 = tl.full([1], 8, tl.int64)
    tmp79 = tmp77 < tmp78
    tmp80 = tmp79 & tmp76
    tmp81 = tl.full([1], 0.0, tl.float32)
    tmp82 = tl.full(tmp81.shape, 0.0, tmp81.dtype)
    tmp83 = tl.where(tmp80, tmp81, tmp82)
    tmp84 = tl.load(in_ptr0 + (x2), tmp76 & xmask, other=0.0)
    tmp85 = tl.where(tmp79, tmp83, tmp84)
    tmp86 = tl.full([1], 2.0, tl.float32)
    tmp87 = tmp85 * tmp86
    tmp88 = tl.full(tmp87.shape, 0.0, tmp87.dtype)
    tmp89 = tl.where(tmp76, tmp87, tmp88)
    tmp90 = tl.full([1], 8, tl.int64)
    tmp91 = tmp70 < tmp90
    tmp92 = tmp91 & tmp69
    tmp93 = tl.full([1], 0.0, tl.float32)
    tmp94 = tl.full(tmp93.shape, 0.0, tmp93.dtype)
    tmp95 = tl.where(tmp92, tmp93, tmp94)
    tmp96 = tl.load(in_ptr0 + (x2), tmp69 & xmask, other=0.0)
    tmp97 = tl.where(tmp91, tmp95, tmp96)
    tmp98 = tl.where(tmp75, tmp89, tmp97)
    tmp99 = tl.full(tmp98.shape, 0.0, tmp98.dtype)
    tmp100 = tl.where(tmp69, tmp98, tmp99)
    tmp101 = tl.full([1], 8, tl.int64)
    tmp102 = tmp6 < tmp101
    tmp103 = tmp102 & tmp5
    tmp104 = tl.full([1], 0.0, tl.float32)
    tmp105 = tl.full(tmp104.shape, 0.0, tmp104.dtype)
    tmp106 = tl.where(tmp103, tmp104, tmp105)
    tmp107 = tl.load(in_ptr0 + (x2), tmp5 & xmask, other=0.0)
    tmp108 = tl.where(tmp102, tmp106, tmp107)
    tmp109 = tl.where(tmp68, tmp100, tmp108)
    tmp110 = tl.where(tmp11, tmp62, tmp109)
    tmp111 = tl.full(tmp110.shape, 0.0, tmp110.dtype)
    tmp112 = tl.where(tmp5, tmp110, tmp111)
    tmp113 = tl.full([1], 2.0, tl.float32)
    tmp114 = tmp59 * tmp113
    tmp115 = tl.full(tmp114.shape, 0.0, tmp114.dtype)
    tmp116 = tl.where(tmp12, tmp114, tmp115)
    tmp117 = tl.where(tmp11, tmp116, tmp108)
    tmp118 = tl.full(tmp117.shape, 0.0, tmp117.dtype)
    tmp119 = tl.where(tmp5, tmp117, tmp118)
    tmp120 = x0
    tmp121 = tl.full([1], 8, tl.int64)
    tmp122 = tmp120 < tmp121
    tmp123 = tl.full([1], 0.0, tl.float32)
    tmp124 = tl.full(tmp123.shape, 0.0, tmp123.dtype)
    tmp125 = tl.where(tmp122, tmp123, tmp124)
    tmp127 = tl.where(tmp122, tmp125, tmp126)
    tmp128 = tl.where(tmp5, tmp119, tmp127)
    tmp129 = tl.where(tmp5, tmp112, tmp128)
    tl.store(out_ptr0 + (x2), tmp129, xmask)
