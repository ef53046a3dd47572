import { MigrationInterface, QueryRunner } from 'typeorm';

type Row = [
  id: string,
  slug: string,
  name: string,
  type: string,
  description: string,
  specs: object,
  available: boolean,
  prices: Record<string, string>,
];

// The provider's catalogue, not demo data: every database gets it. Prices in EUR, excluding VAT.
// Frozen with this migration; later catalogue changes are new migrations.
const CATALOGUE: Row[] = [
  [
    '36373b27-af44-4962-a1e0-d99b275faa1f',
    'vps-xs',
    'VPS XS',
    'vps',
    'Shared vCPU for small sites, bots and test machines.',
    { vcpus: 1, memoryMb: 1024, diskGb: 25, transferTb: 1 },
    true,
    { hourly: '0.0066', monthly: '3.9900', quarterly: '11.4900', annually: '43.0900' },
  ],
  [
    'e13c1b4f-63ab-4516-9b19-3d7d712130fe',
    'vps-s',
    'VPS S',
    'vps',
    'Two vCPUs for web applications with moderate traffic.',
    { vcpus: 2, memoryMb: 2048, diskGb: 40, transferTb: 2 },
    true,
    { hourly: '0.0099', monthly: '5.9900', quarterly: '17.2900', annually: '64.6900' },
  ],
  [
    '2cdca472-ba01-487a-b345-0ee625009cfb',
    'vps-m',
    'VPS M',
    'vps',
    'Balanced plan for databases and application servers.',
    { vcpus: 2, memoryMb: 4096, diskGb: 80, transferTb: 3 },
    true,
    { hourly: '0.0164', monthly: '9.9900', quarterly: '28.7900', annually: '107.8900' },
  ],
  [
    '8d25c32b-3336-4b80-8283-639730058e67',
    'vps-l',
    'VPS L',
    'vps',
    'Four vCPUs and 8 GB of memory for busy production workloads.',
    { vcpus: 4, memoryMb: 8192, diskGb: 160, transferTb: 4 },
    true,
    { hourly: '0.0312', monthly: '18.9900', quarterly: '54.6900', annually: '205.0900' },
  ],
  [
    'a0cb8a56-73c5-4d27-b238-df76af656b0d',
    'vps-xl',
    'VPS XL',
    'vps',
    'Eight vCPUs for CI runners, analytics and large caches.',
    { vcpus: 8, memoryMb: 16384, diskGb: 320, transferTb: 5 },
    true,
    { hourly: '0.0624', monthly: '37.9900', quarterly: '109.3900', annually: '410.2900' },
  ],
  [
    'd692b5ea-ee75-4f8f-babf-511606955a39',
    'vps-xxl-2023',
    'VPS XXL (2023)',
    'vps',
    'Previous generation; existing servers keep running, no new orders.',
    { vcpus: 16, memoryMb: 32768, diskGb: 480, transferTb: 6 },
    false,
    { hourly: '0.1150', monthly: '69.9900' },
  ],
  [
    'f25eb86e-7d86-458a-b89f-d7a2aa9a4900',
    'storage-250',
    'Object Storage 250 GB',
    'object_storage',
    'S3-compatible bucket with 250 GB for backups and assets.',
    { storageGb: 250, transferTb: 1 },
    true,
    { monthly: '4.9900', annually: '53.8900' },
  ],
  [
    'd04329ea-4f11-413e-84dd-16a09000b05f',
    'storage-1000',
    'Object Storage 1 TB',
    'object_storage',
    'S3-compatible bucket with 1 TB for media libraries and archives.',
    { storageGb: 1000, transferTb: 3 },
    true,
    { monthly: '12.9900', annually: '140.2900' },
  ],
  [
    '4990b4e5-d333-457c-b88b-9deda1e41919',
    'storage-5000',
    'Object Storage 5 TB',
    'object_storage',
    'S3-compatible bucket with 5 TB for data sets and long-term retention.',
    { storageGb: 5000, transferTb: 10 },
    true,
    { monthly: '49.9900', annually: '539.8900' },
  ],
];

const CYCLES = `'hourly','monthly','quarterly','semi_annually','annually','biennially','triennially','one_time'`;

export class CreateProducts1764000000300 implements MigrationInterface {
  name = 'CreateProducts1764000000300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE products (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug varchar(64) NOT NULL CONSTRAINT products_slug_key UNIQUE,
        name varchar(100) NOT NULL,
        type varchar(20) NOT NULL CONSTRAINT products_type_check CHECK (type IN ('vps', 'object_storage')),
        description text NOT NULL,
        specs jsonb NOT NULL,
        available boolean NOT NULL DEFAULT true,
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX products_list_idx ON products (position, id)`);
    await db.query(`
      CREATE TABLE product_prices (
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        billing_cycle varchar(20) NOT NULL CONSTRAINT product_prices_cycle_check CHECK (billing_cycle IN (${CYCLES})),
        currency char(3) NOT NULL,
        price numeric(12,4) NOT NULL CONSTRAINT product_prices_price_check CHECK (price >= 0),
        PRIMARY KEY (product_id, billing_cycle, currency)
      )`);
    for (const [index, [id, slug, name, type, description, specs, available, prices]] of CATALOGUE.entries()) {
      await db.query(
        `INSERT INTO products (id, slug, name, type, description, specs, available, position) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
        [id, slug, name, type, description, JSON.stringify(specs), available, (index + 1) * 10],
      );
      for (const [cycle, price] of Object.entries(prices)) {
        await db.query(`INSERT INTO product_prices (product_id, billing_cycle, currency, price) VALUES ($1, $2, 'EUR', $3)`, [
          id,
          cycle,
          price,
        ]);
      }
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE product_prices`);
    await db.query(`DROP TABLE products`);
  }
}
