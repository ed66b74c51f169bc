import net from 'node:net';
import { HttpParseError, HttpResponseReader, type HttpAnswer } from './http-response';
import { Samples, summarise, type LatencySummary } from './open-loop';

/** One request of the open-loop schedule; `bytes` is the whole request, written as is. */
export interface ScheduledRequest {
  scheduledAt: number;
  bytes: Buffer;
  writtenAt: number;
}

export interface PoolEvents {
  written(request: ScheduledRequest): void;
  answered(request: ScheduledRequest, answer: HttpAnswer): void;
  failed(request: ScheduledRequest, code: string): void;
  timedOut(request: ScheduledRequest): void;
}

export interface PoolStats {
  opened: number;
  peakOpen: number;
  connectErrors: number;
  /** Requests that found every connection busy and waited in the generator's queue. */
  waitedForConnection: number;
  /** TCP connect times: a second or more means SYNs dropped on a full listen queue. */
  connectMs: LatencySummary;
}

interface Connection {
  socket: net.Socket;
  reader: HttpResponseReader;
  current: ScheduledRequest | null;
  connected: boolean;
  closed: boolean;
  error: string | null;
}

/**
 * Keep-alive HTTP/1.1 connections, one request at a time each, opened on demand up to a cap.
 * A request waits in the queue only once the cap is reached; it still times out from its
 * scheduled time, and it counts as sent only when its bytes are written.
 */
export class ConnectionPool {
  private readonly all = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private readonly queue: ScheduledRequest[] = [];
  private queueHead = 0;
  private closing = false;
  private readonly counters = { opened: 0, peakOpen: 0, connectErrors: 0, waitedForConnection: 0 };
  private readonly connectTimes = new Samples();

  constructor(
    private readonly target: { host: string; port: number },
    private readonly maxConnections: number,
    private readonly events: PoolEvents,
  ) {}

  /** Requests written or waiting, not yet answered, failed or timed out. */
  get outstanding(): number {
    let busy = 0;
    for (const connection of this.all) if (connection.current) busy++;
    return busy + this.queue.length - this.queueHead;
  }

  submit(request: ScheduledRequest): void {
    const connection = this.takeIdle();
    if (connection) this.write(connection, request);
    else if (this.all.size < this.maxConnections) this.open(request);
    else {
      this.counters.waitedForConnection++;
      this.queue.push(request);
    }
  }

  stats(): PoolStats {
    return { ...this.counters, connectMs: summarise(this.connectTimes) };
  }

  /** Called every few tens of milliseconds; a timed-out request costs its connection. */
  expire(now: number, timeoutMs: number): void {
    for (const connection of this.all) {
      const request = connection.current;
      if (request && now - request.scheduledAt >= timeoutMs) {
        connection.current = null;
        this.events.timedOut(request);
        connection.socket.destroy();
      }
    }
    while (this.queueHead < this.queue.length && now - this.queue[this.queueHead]!.scheduledAt >= timeoutMs) {
      this.events.timedOut(this.dequeue()!);
    }
  }

  close(): void {
    this.closing = true;
    for (const connection of this.all) connection.socket.destroy();
  }

  private takeIdle(): Connection | undefined {
    let connection = this.idle.pop();
    while (connection?.closed) connection = this.idle.pop();
    return connection;
  }

  private dequeue(): ScheduledRequest | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const request = this.queue[this.queueHead++];
    // Compact now and then so a long overload does not keep every request alive.
    if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return request;
  }

  private open(first: ScheduledRequest): void {
    const socket = net.connect({ host: this.target.host, port: this.target.port });
    socket.setNoDelay(true);
    const connection: Connection = {
      socket,
      reader: new HttpResponseReader(),
      current: first,
      connected: false,
      closed: false,
      error: null,
    };
    this.all.add(connection);
    this.counters.opened++;
    this.counters.peakOpen = Math.max(this.counters.peakOpen, this.all.size);
    const openedAt = performance.now();
    socket.once('connect', () => {
      connection.connected = true;
      this.connectTimes.add(performance.now() - openedAt);
      const request = connection.current;
      if (request) this.send(connection, request);
    });
    socket.on('data', (chunk: Buffer) => this.read(connection, chunk));
    socket.on('end', () => connection.reader.end((answer) => this.answer(connection, answer)));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      connection.error = error.code ?? error.name;
      if (!connection.connected) this.counters.connectErrors++;
    });
    socket.once('close', () => this.closed(connection));
  }

  private write(connection: Connection, request: ScheduledRequest): void {
    connection.current = request;
    this.send(connection, request);
  }

  private send(connection: Connection, request: ScheduledRequest): void {
    request.writtenAt = performance.now();
    connection.socket.write(request.bytes);
    this.events.written(request);
  }

  private read(connection: Connection, chunk: Buffer): void {
    try {
      connection.reader.push(chunk, (answer) => this.answer(connection, answer));
    } catch (error) {
      connection.error = error instanceof HttpParseError ? 'EPARSE' : 'EREAD';
      connection.socket.destroy();
    }
  }

  private answer(connection: Connection, answer: HttpAnswer): void {
    const request = connection.current;
    // An answer after a timeout belongs to a request already counted; drop the connection.
    if (!request) {
      connection.socket.destroy();
      return;
    }
    connection.current = null;
    this.events.answered(request, answer);
    if (!answer.keepAlive) {
      connection.socket.end();
      return;
    }
    const next = this.dequeue();
    if (next) this.write(connection, next);
    else this.idle.push(connection);
  }

  private closed(connection: Connection): void {
    connection.closed = true;
    this.all.delete(connection);
    const request = connection.current;
    if (request) {
      connection.current = null;
      this.events.failed(request, connection.error ?? (connection.connected ? 'ECLOSED' : 'ECONNECT'));
    }
    const next = this.closing ? undefined : this.dequeue();
    if (next) this.open(next);
  }
}
