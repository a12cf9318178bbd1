
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__adaptive_avg_pool2d_unsqueeze_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 10, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 896}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__adaptive_avg_pool2d_unsqueeze_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 112
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 7)
    x1 = xindex // 7
    x2 = xindex
    tmp0 = tl.full([1], 0, tl.int64)
    tmp1 = tl.full([1], 1, tl.int64)
    tmp2 = tmp0 < tmp1
    tmp3 = (64*x0) // 7
    tmp4 = 10 + ((64*x0) // 7)
    tmp5 = tmp3 < tmp4
    tmp6 = tmp2 & tmp5
    tmp7 = tl.load(in_ptr0 + (64*x1 + ((64*x0) // 7)), tmp6 & xmask, eviction_policy='evict_last', other=0.0)
    tmp8 = 1 + ((64*x0) // 7)
    tmp9 = tmp8 < tmp4
    tmp10 = tmp2 & tmp9
    tmp11 = tl.load(in_ptr0 + (1 + 64*x1 + ((64*x0) // 7)), tmp10 & xmask, eviction_policy='evict_last', other=0.0)
    tmp12 = tmp11 + tmp7
    tmp13 = 2 + ((64*x0) // 7)
    tmp14 = tmp13 < tmp4
    tmp15 = tmp2 & tmp14
    tmp16 = tl.load(in_ptr0 + (2 + 64*x1 + ((64*x0) // 7)), tmp15 & xmask, eviction_policy='evict_last', other=0.0)
    tmp17 = tmp16 + tmp12
    tmp18 = 3 + ((64*x0) // 7)
    tmp19 = tmp18 < tmp4
    tmp20 = tmp2 & tmp19
    tmp21 = tl.load(in_ptr0 + (3 + 64*x1 + ((64*x0) // 7)), tmp20 & xmask, eviction_policy='evict_last', other=0.0)
    tmp22 = tmp21 + tmp17
    tmp23 = 4 + ((64*x0) // 7)
    tmp24 = tmp23 < tmp4
    tmp25 = tmp2 & tmp24
    tmp26 = tl.load(in_ptr0 + (4 + 64*x1 + ((64*x0) // 7)), tmp25 & xmask, eviction_policy='evict_last', other=0.0)
    tmp27 = tmp26 + tmp22
    tmp28 = 5 + ((64*x0) // 7)
    tmp29 = tmp28 < tmp4
    tmp30 = tmp2 & tmp29
    tmp31 = tl.load(in_ptr0 + (5 + 64*x1 + ((64*x0) // 7)), tmp30 & xmask, eviction_policy='evict_last', other=0.0)
    tmp32 = tmp31 + tmp27
    tmp33 = 6 + ((64*x0) // 7)
    tmp34 = tmp33 < tmp4
    tmp35 = tmp2 & tmp34
    tmp36 = tl.load(in_ptr0 + (6 + 64*x1 + ((64*x0) // 7)), tmp35 & xmask, eviction_policy='evict_last', other=0.0)
    tmp37 = tmp36 + tmp32
    tmp38 = 7 + ((64*x0) // 7)
    tmp39 = tmp38 < tmp4
    tmp40 = tmp2 & tmp39
    tmp41 = tl.load(in_ptr0 + (7 + 64*x1 + ((64*x0) // 7)), tmp40 & xmask, eviction_policy='evict_last', other=0.0)
    tmp42 = tmp41 + tmp37
    tmp43 = 8 + ((64*x0) // 7)
    tmp44 = tmp43 < tmp4
    tmp45 = tmp2 & tmp44
    tmp46 = tl.load(in_ptr0 + (8 + 64*x1 + ((64*x0) // 7)), tmp45 & xmask, eviction_policy='evict_last', other=0.0)
    tmp47 = tmp46 + tmp42
    tmp48 = 9 + ((64*x0) // 7)
    tmp49 = tmp48 < tmp4
    tmp50 = tmp2 & tmp49
    tmp51 = tl.load(in_ptr0 + (9 + 64*x1 + ((64*x0) // 7)), tmp50 & xmask, eviction_policy='evict_last', other=0.0)
    tmp52 = tmp51 + tmp47
    tmp53 = tl.full([1], 1.0, tl.float32)
    tmp54 = tl.full(tmp53.shape, 0.0, tmp53.dtype)
    tmp55 = tl.where(tmp6, tmp53, tmp54)
    tmp56 = tl.full([1], 1.0, tl.float32)
    tmp57 = tl.full(tmp56.shape, 0.0, tmp56.dtype)
    tmp58 = tl.where(tmp10, tmp56, tmp57)
    tmp59 = tmp58 + tmp55
    tmp60 = tl.full([1], 1.0, tl.float32)
    tmp61 = tl.full(tmp60.shape, 0.0, tmp60.dtype)
    tmp62 = tl.where(tmp15, tmp60, tmp61)
    tmp63 = tmp62 + tmp59
    tmp64 = tl.full([1], 1.0, tl.float32)
    tmp65 = tl.full(tmp64.shape, 0.0, tmp64.dtype)
    tmp66 = tl.where(tmp20, tmp64, tmp65)
    tmp67 = tmp66 + tmp63
    tmp68 = tl.full([1], 1.0, tl.float32)
    tmp69 = tl.full(tmp68.shape, 0.0, tmp68.dtype)
    tmp70 = tl.where(tmp25, tmp68, tmp69)
    tmp71 = tmp70 + tmp67
    tmp72 = tl.full([1], 1.0, tl.float32)
    tmp73 = tl.full(tmp72.shape, 0.0, tmp72.dtype)
    tmp74 = tl.where(tmp30, tmp72, tmp73)
    tmp75 = tmp74 + tmp71
    tmp76 = tl.full([1], 1.0, tl.float32)
    tmp77 = tl.full(tmp76.shape, 0.0, tmp76.dtype)
    tmp78 = tl.where(tmp35, tmp76, tmp77)
    tmp79 = tmp78 + tmp75
    tmp80 = tl.full([1], 1.0, tl.float32)
    tmp81 = tl.full(tmp80.shape, 0.0, tmp80.dtype)
    tmp82 = tl.where(tmp40, tmp80, tmp81)
    tmp83 = tmp82 + tmp79
    tmp84 = tl.full([1], 1.0, tl.float32)
    tmp85 = tl.full(tmp84.shape, 0.0, tmp84.dtype)
    tmp86 = tl.where(tmp45, tmp84, tmp85)
    tmp87 = tmp86 + tmp83
    tmp88 = tl.full([1], 1.0, tl.float32)
    tmp89 = tl.full(tmp88.shape, 0.0, tmp88.dtype)
    tmp90 = tl.where(tmp50, tmp88, tmp89)
    tmp91 = tmp90 + tmp87
    tmp92 = (tmp52 / tmp91)
    tl.store(out_ptr0 + (x2), tmp92, xmask)
