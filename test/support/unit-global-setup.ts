import { useRunTempFolder } from './temp-folder';

/** The unit project's setup: only the run's temp folder, checked by the shared global teardown. */
export default function unitGlobalSetup(): void {
  useRunTempFolder();
}
