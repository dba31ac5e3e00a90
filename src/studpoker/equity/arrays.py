"""The numpy array types the equity modules pass around."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
IntArray = npt.NDArray[np.integer[Any]]
F64 = npt.NDArray[np.float64]
