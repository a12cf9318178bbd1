
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
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_abs_add_celu_div_elu_gt_hardsigmoid_hardswish_hardtanh_le_leaky_relu_log_sigmoid_forward_mish_mul_scalar_tensor_sign_softplus_sub_tanh_threshold_where_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 24576}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_abs_add_celu_div_elu_gt_hardsigmoid_hardswish_hardtanh_le_leaky_relu_log_sigmoid_forward_mish_mul_scalar_tensor_sign_softplus_sub_tanh_threshold_where_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0.0, tl.float32)
    tmp2 = tmp0 > tmp1
    tmp3 = tl.full([1], 0.1, tl.float32)
    tmp4 = tmp0 * tmp3
    tmp5 = tl.where(tmp2, tmp0, tmp4)
    tmp6 = tl.full([1], 1.0, tl.float32)
    tmp7 = tmp0 * tmp6
    tmp8 = libdevice.expm1(tmp7)
    tmp9 = tmp8 * tmp6
    tmp10 = tl.where(tmp2, tmp7, tmp9)
    tmp11 = tmp5 + tmp10
    tmp12 = tl.full([1], 1.0507009873554805, tl.float32)
    tmp13 = tmp0 * tmp12
    tmp14 = tl.full([1], 1.7580993408473766, tl.float32)
    tmp15 = tmp8 * tmp14
    tmp16 = tl.where(tmp2, tmp13, tmp15)
    tmp17 = tmp11 + tmp16
    tmp18 = libdevice.expm1(tmp0)
    tmp19 = tl.where(tmp2, tmp0, tmp18)
    tmp20 = tmp17 + tmp19
    tmp21 = tl.full([1], 20.0, tl.float32)
    tmp22 = tmp0 > tmp21
    tmp23 = libdevice.exp(tmp0)
    tmp24 = libdevice.log1p(tmp23)
    tmp25 = tl.where(tmp22, tmp0, tmp24)
    tmp26 = tmp20 + tmp25
    tmp27 = libdevice.tanh(tmp25)
    tmp28 = tmp0 * tmp27
    tmp29 = tmp26 + tmp28
    tmp30 = tl.full([1], 3.0, tl.float32)
    tmp31 = tmp0 + tmp30
    tmp32 = triton_helpers.maximum(tmp31, tmp1)
    tmp33 = tl.full([1], 6.0, tl.float32)
    tmp34 = triton_helpers.minimum(tmp32, tmp33)
    tmp35 = tmp0 * tmp34
    tmp36 = tl.full([1], 0.16666666666666666, tl.float32)
    tmp37 = tmp35 * tmp36
    tmp38 = tmp29 + tmp37
    tmp39 = tmp34 * tmp36
    tmp40 = tmp38 + tmp39
    tmp41 = triton_helpers.maximum(tmp0, tmp1)
    tmp42 = triton_helpers.minimum(tmp41, tmp33)
    tmp43 = tmp40 + tmp42
    tmp44 = triton_helpers.minimum(tmp1, tmp0)
    tmp45 = tl_math.abs(tmp0)
    tmp46 = -tmp45
    tmp47 = libdevice.exp(tmp46)
    tmp48 = libdevice.log1p(tmp47)
    tmp49 = tmp44 - tmp48
    tmp50 = tmp43 + tmp49
    tmp51 = tmp45 + tmp6
    tmp52 = (tmp0 / tmp51)
    tmp53 = tmp50 + tmp52
    tmp54 = libdevice.tanh(tmp0)
    tmp55 = tmp0 - tmp54
    tmp56 = tmp53 + tmp55
    tmp57 = tmp0 <= tmp3
    tmp58 = tl.full([1], -1.0, tl.float32)
    tmp59 = tl.where(tmp57, tmp58, tmp0)
    tmp60 = tmp56 + tmp59
    tmp61 = tl.full([1], 0.5, tl.float32)
    tmp62 = tmp45 <= tmp61
    tmp63 = tl.where(tmp62, tmp1, tmp0)
    tmp64 = tmp60 + tmp63
    tmp65 = tmp45 > tmp61
    tmp66 = tl.full([1], 0, tl.int32)
    tmp67 = tmp66 < tmp0
    tmp68 = tmp67.to(tl.int8)
    tmp69 = tmp0 < tmp66
    tmp70 = tmp69.to(tl.int8)
    tmp71 = tmp68 - tmp70
    tmp72 = tmp71.to(tmp0.dtype)
    tmp73 = tmp72 * tmp61
    tmp74 = tmp0 - tmp73
    tmp75 = tl.where(tmp65, tmp74, tmp1)
    tmp76 = tmp64 + tmp75
    tl.store(out_ptr0 + (x0), tmp76, xmask)
