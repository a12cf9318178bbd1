
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'y': 32, 'x': 8}, tile_hint=TileHint.DEFAULT,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*i64', 'in_ptr2': '*fp32', 'in_ptr3': '*i64', 'in_ptr4': '*i64', 'in_ptr5': '*fp32', 'in_ptr6': '*fp32', 'ynumel': 'i32', 'xnumel': 'i32', 'YBLOCK': 'constexpr', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid2D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__unsafe_index_add_avg_pool2d_mul_sub_3', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'y': 160, 'x': 2208}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_index_add_avg_pool2d_mul_sub_3(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, in_ptr6, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 32
    xnumel = 8
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    y0 = (yindex % 8)
    x2 = xindex
    y1 = yindex // 8
    y3 = yindex
    tmp0 = tl.load(in_ptr0 + (y0), ymask, eviction_policy='evict_last')
    tmp5 = tl.load(in_ptr1 + (x2), xmask, eviction_policy='evict_last')
    tmp18 = tl.load(in_ptr3 + (y0), ymask, eviction_policy='evict_last')
    tmp30 = tl.load(in_ptr4 + (x2), xmask, eviction_policy='evict_last')
    tmp43 = tl.load(in_ptr5 + (x2), xmask, eviction_policy='evict_last')
    tmp58 = tl.load(in_ptr6 + (y0), ymask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], 4, tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tmp6 = tmp5 + tmp1
    tmp7 = tmp5 < 0
    tmp8 = tl.where(tmp7, tmp6, tmp5)
    tmp9 = tl.load(in_ptr2 + (2*tmp8 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr2 + (1 + 2*tmp8 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp11 = tmp9 + tmp10
    tmp12 = tl.load(in_ptr2 + (8 + 2*tmp8 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp13 = tmp11 + tmp12
    tmp14 = tl.load(in_ptr2 + (9 + 2*tmp8 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp15 = tmp13 + tmp14
    tmp16 = tl.full([1, 1], 4.0, tl.float32)
    tmp17 = (tmp15 / tmp16)
    tmp19 = tmp18 + tmp1
    tmp20 = tmp18 < 0
    tmp21 = tl.where(tmp20, tmp19, tmp18)
    tmp22 = tl.load(in_ptr2 + (2*tmp8 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp23 = tl.load(in_ptr2 + (1 + 2*tmp8 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp24 = tmp22 + tmp23
    tmp25 = tl.load(in_ptr2 + (8 + 2*tmp8 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp26 = tmp24 + tmp25
    tmp27 = tl.load(in_ptr2 + (9 + 2*tmp8 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp28 = tmp26 + tmp27
    tmp29 = (tmp28 / tmp16)
    tmp31 = tmp30 + tmp1
    tmp32 = tmp30 < 0
    tmp33 = tl.where(tmp32, tmp31, tmp30)
    tmp34 = tl.load(in_ptr2 + (2*tmp33 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp35 = tl.load(in_ptr2 + (1 + 2*tmp33 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp36 = tmp34 + tmp35
    tmp37 = tl.load(in_ptr2 + (8 + 2*tmp33 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp38 = tmp36 + tmp37
    tmp39 = tl.load(in_ptr2 + (9 + 2*tmp33 + 16*tmp21 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp40 = tmp38 + tmp39
    tmp41 = (tmp40 / tmp16)
    tmp42 = tmp41 - tmp29
    tmp44 = tmp42 * tmp43
    tmp45 = tmp29 + tmp44
    tmp46 = tl.load(in_ptr2 + (2*tmp33 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp47 = tl.load(in_ptr2 + (1 + 2*tmp33 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp48 = tmp46 + tmp47
    tmp49 = tl.load(in_ptr2 + (8 + 2*tmp33 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp50 = tmp48 + tmp49
    tmp51 = tl.load(in_ptr2 + (9 + 2*tmp33 + 16*tmp4 + 64*y1), xmask & ymask, eviction_policy='evict_last')
    tmp52 = tmp50 + tmp51
    tmp53 = (tmp52 / tmp16)
    tmp54 = tmp53 - tmp17
    tmp55 = tmp54 * tmp43
    tmp56 = tmp17 + tmp55
    tmp57 = tmp56 - tmp45
    tmp59 = tmp57 * tmp58
    tmp60 = tmp45 + tmp59
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (x2 + 8*y3), tmp60, xmask & ymask)
