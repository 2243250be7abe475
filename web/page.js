// FALLBACK (issue 27): the client helper's script replaces this file at the merge.
"use strict";
