"""`filewright.dispatch`: the documented import path of `filewright.surfaces.dispatch`.

The same module object, so `from filewright.dispatch import dispatch` and patching its
attributes behave as they always have.
"""

import sys

from filewright.surfaces import dispatch as _dispatch

sys.modules[__name__] = _dispatch
