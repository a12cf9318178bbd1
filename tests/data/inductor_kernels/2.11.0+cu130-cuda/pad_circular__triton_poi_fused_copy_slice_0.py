
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 4096}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_copy_slice_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 8, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 66432}},
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
    x5 = xindex // 400
    x6 = xindex
    x3 = xindex // 1200
    x7 = (xindex % 1200)
    tmp0 = x0
    tmp1 = tl.full([1], 18, tl.int64)
    tmp2 = tmp0 >= tmp1
    tmp3 = (-16) + x0
    tmp4 = tl.full([1], 2, tl.int64)
    tmp5 = tmp3 < tmp4
    tmp6 = tmp5 & tmp2
    tmp7 = x0
    tmp8 = tl.full([1], 2, tl.int64)
    tmp9 = tmp7 >= tmp8
    tmp10 = tl.full([1], 18, tl.int64)
    tmp11 = tmp7 < tmp10
    tmp12 = tmp9 & tmp11
    tmp13 = tmp12 & tmp6
    tmp14 = x1
    tmp15 = tl.full([1], 2, tl.int64)
    tmp16 = tmp14 >= tmp15
    tmp17 = tl.full([1], 18, tl.int64)
    tmp18 = tmp14 < tmp17
    tmp19 = tmp16 & tmp18
    tmp20 = tmp19 & tmp13
    tmp21 = tl.load(in_ptr0 + ((-34) + x0 + 16*x1 + 256*x5), tmp20 & xmask, other=0.0)
    tmp22 = tl.load(in_ptr1 + (x6), tmp13 & xmask, other=0.0)
    tmp23 = tl.where(tmp19, tmp21, tmp22)
    tmp24 = tl.full(tmp23.shape, 0.0, tmp23.dtype)
    tmp25 = tl.where(tmp13, tmp23, tmp24)
    tmp26 = tl.full([1], float("nan"), tl.float32)
    tmp27 = tl.where(tmp12, tmp25, tmp26)
    tmp28 = tl.full(tmp27.shape, 0.0, tmp27.dtype)
    tmp29 = tl.where(tmp6, tmp27, tmp28)
    tmp30 = tmp3 >= tmp4
    tmp31 = tl.full([1], 18, tl.int64)
    tmp32 = tmp3 < tmp31
    tmp33 = tmp30 & tmp32
    tmp34 = tmp33 & tmp2
    tmp35 = x1
    tmp36 = tl.full([1], 2, tl.int64)
    tmp37 = tmp35 >= tmp36
    tmp38 = tl.full([1], 18, tl.int64)
    tmp39 = tmp35 < tmp38
    tmp40 = tmp37 & tmp39
    tmp41 = tmp40 & tmp34
    tmp42 = tl.load(in_ptr0 + ((-50) + x0 + 16*x1 + 256*x5), tmp41 & xmask, other=0.0)
    tmp43 = tl.load(in_ptr1 + ((-16) + x6), tmp34 & xmask, other=0.0)
    tmp44 = tl.where(tmp40, tmp42, tmp43)
    tmp45 = tl.full(tmp44.shape, 0.0, tmp44.dtype)
    tmp46 = tl.where(tmp34, tmp44, tmp45)
    tmp47 = tl.full([1], float("nan"), tl.float32)
    tmp48 = tl.where(tmp33, tmp46, tmp47)
    tmp49 = tl.where(tmp5, tmp29, tmp48)
    tmp50 = tl.full(tmp49.shape, 0.0, tmp49.dtype)
    tmp51 = tl.where(tmp2, tmp49, tmp50)
    tmp52 = tl.full([1], 2, tl.int64)
    tmp53 = tmp0 < tmp52
    tmp54 = 16 + x0
    tmp55 = tl.full([1], 2, tl.int64)
    tmp56 = tmp54 >= tmp55
    tmp57 = tl.full([1], 18, tl.int64)
    tmp58 = tmp54 < tmp57
    tmp59 = tmp56 & tmp58
    tmp60 = tmp59 & tmp53
    tmp61 = x1
    tmp62 = tl.full([1], 2, tl.int64)
    tmp63 = tmp61 >= tmp62
    tmp64 = tl.full([1], 18, tl.int64)
    tmp65 = tmp61 < tmp64
    tmp66 = tmp63 & tmp65
    tmp67 = tmp66 & tmp60
    tmp68 = tl.load(in_ptr0 + ((-18) + x0 + 16*x1 + 256*x5), tmp67 & xmask, other=0.0)
    tmp69 = tl.load(in_ptr1 + (16 + x6), tmp60 & xmask, other=0.0)
    tmp70 = tl.where(tmp66, tmp68, tmp69)
    tmp71 = tl.full(tmp70.shape, 0.0, tmp70.dtype)
    tmp72 = tl.where(tmp60, tmp70, tmp71)
    tmp73 = tl.full([1], float("nan"), tl.float32)
    tmp74 = tl.where(tmp59, tmp72, tmp73)
    tmp75 = tl.full(tmp74.shape, 0.0, tmp74.dtype)
    tmp76 = tl.where(tmp53, tmp74, tmp75)
    tmp77 = tmp0 >= tmp52
    tmp78 = tmp0 < tmp1
    tmp79 = tmp77 & tmp78
    tmp80 = x1
    tmp81 = tl.full([1], 2, tl.int64)
    tmp82 = tmp80 >= tmp81
    tmp83 = tl.full([1], 18, tl.int64)
    tmp84 = tmp80 < tmp83
    tmp85 = tmp82 & tmp84
    tmp86 = tmp85 & tmp79
    tmp87 = tl.load(in_ptr0 + ((-34) + x0 + 16*x1 + 256*x5), tmp86 & xmask, other=0.0)
    tmp88 = tl.load(in_ptr1 + (x6), tmp79 & xmask, other=0.0)
    tmp89 = tl.where(tmp85, tmp87, tmp88)
    tmp90 = tl.full(tmp89.shape, 0.0, tmp89.dtype)
    tmp91 = tl.where(tmp79, tmp89, tmp90)
    tmp92 = tl.full([1], float("nan"), tl.float32)
    tmp93 = tl.where(tmp79, tmp91, tmp92)
    tmp94 = tl.where(tmp53, tmp76, tmp93)
    tmp95 = tl.where(tmp2, tmp51, tmp94)
    tl.store(out_ptr0 + (x7 + 1216*x3), tmp95, xmask)
