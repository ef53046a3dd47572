import { ApiProperty } from '@nestjs/swagger';
import { isoTimestamp } from '@app/core';

export class ConsoleSessionResponse {
  @ApiProperty({ enum: ['vnc'], example: 'vnc', description: 'Remote framebuffer protocol spoken over the WebSocket.' })
  protocol: 'vnc';
  @ApiProperty({ example: 'wss://api.example.com/console?token=3q2-7wX...', description: 'WebSocket URL with a single-use token.' })
  url: string;
  @ApiProperty({ example: 'h7Qm2xKp', description: 'VNC password for this session.' })
  password: string;
  @ApiProperty({ format: 'date-time', description: 'Connect before this time (60 seconds after creation).' })
  expiresAt: string;

  static fromSession(url: string, password: string, expiresAt: Date): ConsoleSessionResponse {
    return { protocol: 'vnc', url, password, expiresAt: isoTimestamp(expiresAt) };
  }
}
