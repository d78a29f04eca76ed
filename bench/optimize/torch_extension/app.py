# The application: builds the extension at run time (cached by PyTorch after the first build) and calls its
# kernel a few times on a 65536 x 512 matrix. A changed row_sum_ext.cu is rebuilt on the next run.
import os, sys, torch
from torch.utils.cpp_extension import load
here = os.path.dirname(os.path.abspath(__file__))
ext = load(name="row_sum_ext", sources=[os.path.join(here, "row_sum_ext.cu")], extra_cuda_cflags=["-O3"], verbose=False)
torch.manual_seed(0)
x = torch.randn(65536, 512, device="cuda")
for _ in range(10):
    s = ext.row_sums(x)
torch.cuda.synchronize()
print("checksum", float(s.double().sum()), file=sys.stderr)
