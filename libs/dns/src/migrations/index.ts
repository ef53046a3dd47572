import { Dns1764000004300 } from './1764000004300-dns';

export const dnsMigrations = [Dns1764000004300];
