import { Validations } from 'aws-cdk-lib';
import { GatewayVpcEndpointAwsService, InstanceType, Peer, Port, SecurityGroup, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Architecture, CapacityProvider, InstanceTypeFilter, ScalingOptions, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { lockDown, natInstanceProvider, type ManagedEgress } from './nat-instances.js';

export interface ManagedComputeProps {
  /** EC2 instance types the capacity provider may launch; undefined lets Lambda choose (arm64 only). */
  instanceTypes?: readonly string[];
  /** PerExecutionEnvironmentMaxConcurrency: invocations one execution environment serves at once. */
  concurrencyPerEnvironment: number;
  minEnvironments: number;
  maxEnvironments?: number;
  maxVCpus?: number;
  /** NATs of the VPC: NAT gateways, or NAT instances with egress `nat-instance`. */
  natGateways: number;
  /** What each NAT is (default `nat-gateway`). */
  egress?: ManagedEgress;
  /** The NAT instances' EC2 type (egress `nat-instance`). */
  natInstanceType?: string;
}

/** Memory per vCPU of each execution environment (GiB): Lambda's default ratio, enough for a gateway that mostly waits. */
export const MEMORY_GIB_PER_VCPU = 2;
/** The smallest function memory Lambda Managed Instances accept (one vCPU at the 2 GiB ratio). */
export const MANAGED_MIN_MEMORY_MB = 2048;

/**
 * The gateway on Lambda Managed Instances (context `gatewayCompute=managed-instances`, issue #44): a capacity
 * provider whose EC2 instances Lambda launches, patches and scales in private subnets of a VPC of the stack's own,
 * with the gateway function attached to it. Each execution environment serves `concurrencyPerEnvironment`
 * invocations at once (Node.js: worker threads, async concurrency within each), which suits a function that spends
 * most of its time waiting for a provider. Egress to the providers goes through NAT gateways (or NAT instances, which
 * have no per-GB charge: nat-instances.ts); DynamoDB and S3 through gateway endpoints, which cost nothing and keep the store's traffic off the NAT's per-GB charge. No inbound rule:
 * Lambda delivers invocations to the environments itself. API Gateway keeps invoking the function unqualified, which
 * for a function on a capacity provider means its `$LATEST.PUBLISHED` version (CloudFormation publishes it).
 */
export class ManagedCompute extends Construct {
  readonly vpc: Vpc;
  readonly securityGroup: SecurityGroup;
  readonly capacityProvider: CapacityProvider;

  constructor(scope: Construct, id: string, private readonly props: ManagedComputeProps) {
    super(scope, id);
    const natInstances = props.egress === 'nat-instance' ? natInstanceProvider(props.natInstanceType ?? 't4g.nano') : undefined;
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 3,
      natGateways: props.natGateways,
      natGatewayProvider: natInstances,
      subnetConfiguration: [
        { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'instances', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
      ],
      gatewayEndpoints: {
        dynamodb: { service: GatewayVpcEndpointAwsService.DYNAMODB },
        s3: { service: GatewayVpcEndpointAwsService.S3 },
      },
    });
    if (natInstances) lockDown(natInstances, this.vpc);
    this.securityGroup = new SecurityGroup(this, 'InstancesSecurityGroup', {
      vpc: this.vpc,
      description: 'gw gateway capacity provider: outbound HTTPS/HTTP to providers and AWS APIs, no inbound',
      allowAllOutbound: false,
    });
    // Providers and AWS APIs speak HTTPS; plain HTTP stays open for custom hosts that a deployment allows (gw checks
    // every custom host's address itself, shared/gateway/http-pool.ts).
    this.securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS to providers and AWS APIs');
    this.securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(80), 'HTTP to custom hosts a deployment allows');
    this.capacityProvider = new CapacityProvider(this, 'CapacityProvider', {
      subnets: this.vpc.privateSubnets,
      securityGroups: [this.securityGroup],
      architectures: [Architecture.ARM_64],
      instanceTypeFilter: props.instanceTypes ? InstanceTypeFilter.allow(props.instanceTypes.map((type) => new InstanceType(type))) : undefined,
      maxVCpuCount: props.maxVCpus,
      scalingOptions: ScalingOptions.auto(),
    });
    this.acknowledgeNagRules();
  }

  /** Puts `fn` on the capacity provider. */
  attach(fn: IFunction): void {
    this.capacityProvider.addFunction(fn, {
      perExecutionEnvironmentMaxConcurrency: this.props.concurrencyPerEnvironment,
      executionEnvironmentMemoryGiBPerVCpu: MEMORY_GIB_PER_VCPU,
      publishToLatestPublished: true,
      latestPublishedScalingConfig: { minExecutionEnvironments: this.props.minEnvironments, maxExecutionEnvironments: this.props.maxEnvironments },
    });
  }

  private acknowledgeNagRules(): void {
    Validations.of(this.vpc).acknowledge({
      id: 'AwsSolutions-VPC7',
      reason: 'The VPC only holds the gateway\'s capacity-provider instances, which accept no inbound traffic; flow logs would bill per GB of every provider call. Add them per deployment where an audit needs them.',
    });
    const operatorRole = this.capacityProvider.node.tryFindChild('OperatorRole');
    if (operatorRole) {
      Validations.of(operatorRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSLambdaManagedEC2ResourceOperator]',
        reason: 'The role Lambda assumes to launch and manage the capacity provider\'s instances; AWS maintains this managed policy for exactly that purpose.',
      });
    }
  }
}
