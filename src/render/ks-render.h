/* ks-render.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-format.h"
#include "ks-slice-colors.h"
#include "ks-render-cairo.h"
#include "ks-timeline-layout.h"
