import { Module } from '@nestjs/common';
import { ServiceOwnership } from './service-ownership';

@Module({
  providers: [ServiceOwnership],
  exports: [ServiceOwnership],
})
export class ServicesModule {}
