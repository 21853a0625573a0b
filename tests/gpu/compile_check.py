#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.compile launches its Triton kernels through the CUDA driver API.

    compile_check.py run            # the program to record
    compile_check.py check FILE     # every kernel joins a runtime or driver call,
                                    # some of them cuLaunchKernel*"""

import sqlite3
import sys

if sys.argv[1] == "run":
    import torch

    @torch.compile
    def f(x, y):
        return torch.nn.functional.gelu(x @ y) * 2 + x.sin()

    x = torch.randn(512, 512, device="cuda")
    y = torch.randn(512, 512, device="cuda")
    for _ in range(20):
        f(x, y)
    torch.cuda.synchronize()
    print("compiled and ran")
    sys.exit(0)

db = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
rows = db.execute("SELECT s.value, COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                  "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                  "AND r.globalTid / 16777216 = k.globalPid / 16777216 "
                  "JOIN StringIds s ON s.id = r.nameId GROUP BY 1").fetchall()
total = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
joined = sum(n for _, n in rows)
driver = sum(n for name, n in rows if name.startswith("cuLaunchKernel"))
print("launch calls:", rows)
ok = total > 0 and joined == total and driver >= 20
print(f"{'ok  ' if ok else 'FAIL'} {joined}/{total} kernels joined, {driver} through cuLaunchKernel*")
sys.exit(0 if ok else 1)
