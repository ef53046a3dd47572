import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runSql, sqlFirst } from '@app/core';

/** All SQL on deployment_identity: the one row holding this deployment's id. */
@Injectable()
export class DeploymentIdentityRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The stored id, made by the first replica that asks (the others find it). */
  async idOrMake(): Promise<string> {
    await runSql(this.dataSource, `INSERT INTO deployment_identity DEFAULT VALUES ON CONFLICT (singleton) DO NOTHING`);
    const row = await sqlFirst<{ id: string }>(this.dataSource, `SELECT id FROM deployment_identity`);
    return row!.id;
  }
}
