# SPDX-License-Identifier: GPL-3.0-or-later
#
# Kinescope's recorder puts this folder first on PYTHONPATH. Everything
# happens in _kinescope_python; this module is replaced there by the
# sitecustomize Python would have run without the recorder.

import _kinescope_python

_kinescope_python.start(__file__)
