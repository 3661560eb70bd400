import { Aspects, Validations } from 'aws-cdk-lib';
import { InstanceRequireImdsv2Aspect, InstanceType, NatProvider, NatTrafficDirection, Peer, Port, type NatInstanceProviderV2, type Vpc } from 'aws-cdk-lib/aws-ec2';

/** What the managed-instances VPC uses as its NAT (the `managedEgress` context key). */
export type ManagedEgress = 'nat-gateway' | 'nat-instance';

/** The ports the gateway's instances may leave by (their security group's egress rules), and so the NAT forwards. */
export const EGRESS_PORTS = [443, 80] as const;

/**
 * NAT instances instead of NAT gateways (`managedEgress=nat-instance`, issue #44): one EC2 instance per NAT, in a
 * public subnet, on Amazon Linux 2023 (CDK's NatProvider.instanceV2 resolves the newest AMI at deploy time and
 * configures iptables masquerading in its user data). It has no per-GB processing charge, only its hours; in exchange
 * it is a single instance the deployer owns: no managed failover, its type's bandwidth, patched by replacing it.
 * Its security group starts closed (NatTrafficDirection.NONE) and `lockDown` opens exactly the gateway's ports.
 */
export function natInstanceProvider(instanceType: string): NatInstanceProviderV2 {
  return NatProvider.instanceV2({ instanceType: new InstanceType(instanceType), defaultAllowedTraffic: NatTrafficDirection.NONE });
}

/**
 * In: only the instances' private subnets, only on the ports they may leave by. Out: those ports to anywhere (the
 * forwarded calls, and the instance's own package downloads at boot, which are HTTPS). IMDSv2 only. Call after the
 * VPC has configured the provider (its security group and instances exist from then on).
 */
export function lockDown(provider: NatInstanceProviderV2, vpc: Vpc): void {
  for (const port of EGRESS_PORTS) {
    for (const subnet of vpc.privateSubnets) provider.connections.allowFrom(Peer.ipv4(subnet.ipv4CidrBlock), Port.tcp(port), `gw instances in ${subnet.node.id} to providers`);
    provider.securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(port), 'forwarded provider and AWS API calls');
  }
  Aspects.of(vpc).add(new InstanceRequireImdsv2Aspect());
  for (const instance of provider.gatewayInstances) {
    Validations.of(instance).acknowledge(
      {
        id: 'AwsSolutions-EC28',
        reason: 'A NAT instance that only forwards the gateway\'s calls: basic monitoring (5-minute metrics) is enough to see its CPU credits and network; detailed monitoring would bill per metric for nothing gw reads.',
      },
      {
        id: 'AwsSolutions-EC29',
        reason: 'The NAT instance holds no state: replacing it (a new deploy, a newer AMI) is how it is patched, so termination protection would only block that; the docs say so (docs/deploy.md, Egress).',
      },
      {
        id: 'AwsSolutions-EC26',
        reason: 'The NAT instance\'s root volume holds the operating system only, no data of gw or its callers (it forwards packets); encrypting it adds a KMS dependency to the instance\'s replacement and protects nothing.',
      },
    );
  }
}
