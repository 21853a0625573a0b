# SPDX-License-Identifier: GPL-3.0-or-later
#
# What the recorder reads of torch._C: the C++ ABI its observer is built for.

_GLIBCXX_USE_CXX11_ABI = True
