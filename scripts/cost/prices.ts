import { readFileSync } from 'node:fs';

/** A dated price file (scripts/cost/prices/<region>.json): list prices with the page each came from. */
export interface PriceFile {
  region: string;
  asOf: string;
  apiGateway: { source: string; restPerMillionTiers: Array<{ upToMillionsPerMonth: number | null; perMillion: number }>; streamedBytesPerBilledRequest: number };
  waf: { source: string; webAclPerMonth: number; rulePerMonth: number; perMillionRequests: number };
  lambda: { source: string; requestsPerMillion: number; arm64PerGbSecond: number; managedInstancesRequestsPerMillion: number; managedInstancesFeeShareOfEc2: number };
  ec2: {
    source: string;
    instances: Record<string, { vcpus: number; memoryGiB: number; perHour: number }>;
    /** NAT instances (managedEgress=nat-instance): the EC2 instance's hour, the only NAT charge besides its address. */
    natInstances: Record<string, { perHour: number }>;
    dataTransferOutPerGb: number;
    /** Between Availability Zones of one region: billed out of one zone and into the other. */
    interAzPerGbEachDirection: number;
  };
  vpc: { source: string; natGatewayPerHour: number; natGatewayPerGbProcessed: number; publicIpv4PerHour: number };
  dynamodb: { source: string; perMillionWriteRequestUnits: number; perMillionReadRequestUnits: number };
  secretsManager: { source: string; perTenThousandCalls: number; perSecretMonth: number };
  firehose: { source: string; ingestionPerGb: number; formatConversionPerGb: number; recordRoundingKb: number };
  s3: { source: string; putPerThousand: number; storagePerGbMonth: number };
  athena: { source: string; perTbScanned: number };
  cloudwatch: { source: string; logsIngestionPerGb: number; alarmPerMonth: number; dashboardPerMonth: number };
  xray: { source: string; perMillionTracesRecorded: number; defaultReservoirPerSecond: number; defaultFixedRate: number };
}

export const DEFAULT_PRICE_FILE = new URL('./prices/us-east-1.json', import.meta.url);

export function readPriceFile(file: URL | string = DEFAULT_PRICE_FILE): PriceFile {
  const prices = JSON.parse(readFileSync(file, 'utf8')) as PriceFile;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(prices.asOf ?? '')) throw new Error(`${String(file)}: a price file needs its date (asOf: YYYY-MM-DD)`);
  return prices;
}
