import { Problem, problemFor } from '@app/core';
import { MetricsUnavailable } from './source/metrics-source';

/** How the metrics area's errors read at the edge (ProblemFilter); loaded with the area (index.ts). */
problemFor(MetricsUnavailable, (err) => new Problem(503, 'metrics_unavailable', err.message, undefined, { 'Retry-After': '5' }));
