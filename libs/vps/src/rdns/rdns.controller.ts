import { Body, Controller, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems, CurrentPrincipal, Principal, UuidParam } from '@app/core';
import { InstanceAddressResponse } from '../service-kind/dto/instance-summary.response';
import { SetReverseDnsRequest } from './dto/rdns.request';
import { RdnsService } from './rdns.service';

@ApiTags('Services')
@ApiBearerAuth()
@Controller('api/services/:id/instance')
export class RdnsController {
  constructor(private readonly rdns: RdnsService) {}

  @Put('rdns')
  @ApiOperation({
    summary: "Set the reverse DNS (PTR) of a VPS's address",
    description:
      "What one of the VPS's public addresses resolves back to, served by the provider's nameservers at once; `ptr: null` gives the address its default back. Shown in `instance.addresses[].ptr`. When the VPS is terminated its addresses go back to the default.",
    operationId: 'setInstanceReverseDns',
  })
  @ApiOkResponse({ type: InstanceAddressResponse })
  @ApiProblems(400, 401, 403, 404, { 409: ['invalid_state', 'unsupported_network_mode'], 503: ['dns_unavailable'] })
  set(
    @CurrentPrincipal() principal: Principal,
    @UuidParam() id: string,
    @Body() body: SetReverseDnsRequest,
  ): Promise<InstanceAddressResponse> {
    return this.rdns.set(principal, id, body);
  }
}
