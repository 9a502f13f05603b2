# bench/h100_ref.py X W OUT...: conv2d 3x3 pad 1 of packed x (NCHW4c) and w (OIHW4o) in
# float64; prints max|out - ref| / max|ref| for each OUT
import sys, numpy as np
x = np.load(sys.argv[1]).astype(np.float64)
w = np.load(sys.argv[2]).astype(np.float64)
n, c4, h, wd, _ = x.shape
xn = x.transpose(0, 1, 4, 2, 3).reshape(n, c4 * 4, h, wd)
o4, i = w.shape[0], w.shape[1]
wn = w.transpose(0, 4, 1, 2, 3).reshape(o4 * 4, i, 3, 3)
xp = np.pad(xn, ((0, 0), (0, 0), (1, 1), (1, 1)))
cols = np.stack([xp[:, :, a:a + h, b:b + wd] for a in range(3) for b in range(3)], axis=2)  # n,c,9,h,w
ref = np.einsum("ncthw,oct->nohw", cols, wn.reshape(o4 * 4, i, 9), optimize=True)
ref = ref.reshape(n, o4, 4, h, wd).transpose(0, 1, 3, 4, 2)
for f in sys.argv[3:]:
    a = np.load(f).astype(np.float64)
    print("%s relerr %.2e" % (f.rsplit("/", 1)[-1], np.abs(a - ref).max() / np.abs(ref).max()))
