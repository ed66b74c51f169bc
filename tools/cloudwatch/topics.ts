// The SNS topic the alarms notify, created with them: found by name (CreateTopic would return
// the same ARN, but could not tell "created" from "already there"), its subscribers counted so
// that setup can say when an alarm would page nobody.
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
  SubscribeCommand,
  type SNSClient,
  type Subscription,
} from '@aws-sdk/client-sns';

export async function findTopic(client: SNSClient, name: string): Promise<string | undefined> {
  let NextToken: string | undefined;
  do {
    const page = await client.send(new ListTopicsCommand({ NextToken }));
    const found = (page.Topics ?? []).find((t) => t.TopicArn?.split(':').at(-1) === name);
    if (found?.TopicArn) return found.TopicArn;
    NextToken = page.NextToken;
  } while (NextToken);
  return undefined;
}

export async function ensureTopic(client: SNSClient, name: string): Promise<{ arn: string; created: boolean }> {
  const existing = await findTopic(client, name);
  if (existing) return { arn: existing, created: false };
  const { TopicArn } = await client.send(new CreateTopicCommand({ Name: name }));
  if (!TopicArn) throw new Error(`CreateTopic ${name} returned no ARN`);
  return { arn: TopicArn, created: true };
}

export async function subscriptions(client: SNSClient, topicArn: string): Promise<Subscription[]> {
  const found: Subscription[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken }));
    found.push(...(page.Subscriptions ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return found;
}

/** A subscription still waiting for its e-mail to be confirmed receives nothing yet. */
export function isConfirmed(subscription: Subscription): boolean {
  return Boolean(subscription.SubscriptionArn?.startsWith('arn:'));
}

/** Subscribes an address unless it already is (confirmed or waiting); says which. */
export async function subscribeEmail(client: SNSClient, topicArn: string, address: string): Promise<'subscribed' | 'already subscribed'> {
  const current = await subscriptions(client, topicArn);
  if (current.some((s) => s.Protocol === 'email' && s.Endpoint?.toLowerCase() === address.toLowerCase())) return 'already subscribed';
  await client.send(new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: address }));
  return 'subscribed';
}

export async function deleteTopic(client: SNSClient, name: string): Promise<boolean> {
  const arn = await findTopic(client, name);
  if (!arn) return false;
  await client.send(new DeleteTopicCommand({ TopicArn: arn }));
  return true;
}
