import { Injectable } from '@nestjs/common';

/** What /metrics counts of backups made by this process: made, failed, bytes stored. */
@Injectable()
export class BackupCounters {
  made = 0;
  failed = 0;
  bytesStored = 0;
}
