# SPDX-License-Identifier: GPL-3.0-or-later
#
# The program's own sitecustomize: the recorder's must run it, as itself.

import os

with open(os.environ['CHAIN_LOG'], 'a') as f:
    f.write('sitecustomize ran as %s\n' % __name__)
