# SPDX-License-Identifier: GPL-3.0-or-later
#
# Prints what the program sees of its start-up: the sitecustomize module
# and sys.path, which must be the same with and without the recorder.

import json
import sys

import sitecustomize

print(json.dumps({'sitecustomize': sitecustomize.__file__, 'path': sys.path}))
