import { CreateMetricAlerts1764000003140 } from './1764000003140-create-metric-alerts';

export const metricsMigrations = [CreateMetricAlerts1764000003140];
