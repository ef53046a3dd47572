import './metrics.problems';
export * from './metrics.module';
export * from './metrics.events';
export * from './migrations';
export { AlertsEvaluationJob } from './alerts/alerts-evaluation.job';
