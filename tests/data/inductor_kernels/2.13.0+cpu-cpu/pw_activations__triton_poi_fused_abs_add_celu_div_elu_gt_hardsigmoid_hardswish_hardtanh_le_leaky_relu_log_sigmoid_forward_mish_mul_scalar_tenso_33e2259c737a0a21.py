
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
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_abs_add_celu_div_elu_gt_hardsigmoid_hardswish_hardtanh_le_leaky_relu_log_sigmoid_forward_mish_mul_scalar_tensor_sign_softplus_sub_tanh_threshold_where_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 24576}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
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
    tmp36 = (tmp35 / tmp33)
    tmp37 = tmp29 + tmp36
    tmp38 = (tmp34 / tmp33)
    tmp39 = tmp37 + tmp38
    tmp40 = triton_helpers.maximum(tmp0, tmp1)
    tmp41 = triton_helpers.minimum(tmp40, tmp33)
    tmp42 = tmp39 + tmp41
    tmp43 = triton_helpers.minimum(tmp1, tmp0)
    tmp44 = tl_math.abs(tmp0)
    tmp45 = -tmp44
    tmp46 = libdevice.exp(tmp45)
    tmp47 = libdevice.log1p(tmp46)
    tmp48 = tmp43 - tmp47
    tmp49 = tmp42 + tmp48
    tmp50 = tmp44 + tmp6
    tmp51 = (tmp0 / tmp50)
    tmp52 = tmp49 + tmp51
    tmp53 = libdevice.tanh(tmp0)
    tmp54 = tmp0 - tmp53
    tmp55 = tmp52 + tmp54
    tmp56 = tmp0 <= tmp3
    tmp57 = tl.full([1], -1.0, tl.float32)
    tmp58 = tl.where(tmp56, tmp57, tmp0)
    tmp59 = tmp55 + tmp58
    tmp60 = tl.full([1], 0.5, tl.float32)
    tmp61 = tmp44 <= tmp60
    tmp62 = tl.where(tmp61, tmp1, tmp0)
    tmp63 = tmp59 + tmp62
    tmp64 = tmp44 > tmp60
    tmp65 = tl.full([1], 0, tl.int32)
    tmp66 = tmp65 < tmp0
    tmp67 = tmp66.to(tl.int8)
    tmp68 = tmp0 < tmp65
    tmp69 = tmp68.to(tl.int8)
    tmp70 = tmp67 - tmp69
    tmp71 = tmp70.to(tmp0.dtype)
    tmp72 = tmp71 * tmp60
    tmp73 = tmp0 - tmp72
    tmp74 = tl.where(tmp64, tmp73, tmp1)
    tmp75 = tmp63 + tmp74
    tl.store(out_ptr0 + (x0), tmp75, xmask)
