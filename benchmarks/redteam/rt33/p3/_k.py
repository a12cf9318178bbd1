import triton, triton.language as tl
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
@triton.jit
def triton_poi_fused__log_softmax_mul_neg_sum_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 64)
    x1 = xindex // 64
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 320*x1), xmask)
    tmp2 = tl.load(in_ptr0 + (64 + x0 + 320*x1), xmask)
    tmp5 = tl.load(in_ptr0 + (128 + x0 + 320*x1), xmask)
    tmp8 = tl.load(in_ptr0 + (192 + x0 + 320*x1), xmask)
    tmp11 = tl.load(in_ptr0 + (256 + x0 + 320*x1), xmask)
    tmp15 = tl.load(in_ptr1 + (x0 + 320*x1), xmask)
    tmp18 = tl.load(in_ptr1 + (64 + x0 + 320*x1), xmask)
    tmp22 = tl.load(in_ptr1 + (128 + x0 + 320*x1), xmask)
    tmp26 = tl.load(in_ptr1 + (192 + x0 + 320*x1), xmask)
    tmp30 = tl.load(in_ptr1 + (256 + x0 + 320*x1), xmask)
    tmp1 = tl.exp(tmp0)
    tmp3 = tl.exp(tmp2)
    tmp4 = tmp1 + tmp3
    tmp6 = tl.exp(tmp5)
    tmp7 = tmp4 + tmp6
    tmp9 = tl.exp(tmp8)
    tmp10 = tmp7 + tmp9
    tmp12 = tl.exp(tmp11)
    tmp13 = tmp10 + tmp12
    tmp14 = tl.log(tmp13)
    tmp16 = tmp0 - tmp14
    tmp17 = tmp15 * tmp16
    tmp19 = tmp2 - tmp14
    tmp20 = tmp18 * tmp19
    tmp21 = tmp17 + tmp20
    tmp23 = tmp5 - tmp14
    tmp24 = tmp22 * tmp23
    tmp25 = tmp21 + tmp24
    tmp27 = tmp8 - tmp14
    tmp28 = tmp26 * tmp27
    tmp29 = tmp25 + tmp28
    tmp31 = tmp11 - tmp14
    tmp32 = tmp30 * tmp31
    tmp33 = tmp29 + tmp32
    tmp34 = -tmp33
    tl.store(in_out_ptr0 + (x2), tmp34, xmask)
