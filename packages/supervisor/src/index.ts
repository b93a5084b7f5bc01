export {
  Supervisor,
  type Codec,
  type Decoded,
  type HandshakeContext,
  type RequestOptions,
  type SupervisorEvent,
  type SupervisorOptions,
  type SupervisorStats,
} from './supervisor.js';
export {
  childProcessTransport,
  lineSplitter,
  nodeIpcTransport,
  readRss,
  workerThreadTransport,
  type Channel,
  type ChannelListener,
  type ChildProcessOptions,
  type ExitInfo,
  type NodeIpcOptions,
  type Transport,
  type WorkerThreadOptions,
} from './transports.js';
