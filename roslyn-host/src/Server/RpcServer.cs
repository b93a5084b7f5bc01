using System.Collections.Concurrent;
using System.Text;
using System.Text.Json;
using System.Threading.Channels;
using CodeAgent.RoslynHost.Protocol;

namespace CodeAgent.RoslynHost.Server;

/// <summary>
/// Newline-delimited JSON request loop. The reader thread parses frames, answers inline methods
/// (handshake, ping, cancel, shutdown) at once and puts the rest in a bounded queue; one worker thread
/// (with a large stack, so deeply nested source cannot overflow it) runs queued requests in order.
/// Every failure becomes an error response: the process only ends on stdin EOF or shutdown.
/// </summary>
public sealed class RpcServer
{
    private readonly TextReader _input;
    private readonly Stream _output;
    private readonly Dictionary<string, IRequestHandler> _handlers;
    private readonly HostState _state;
    private readonly Channel<Pending> _queue;
    private readonly ConcurrentDictionary<long, Pending> _live = new();
    private readonly object _writeGate = new();
    private int _queued;
    private volatile bool _stopping;

    private sealed class Pending(RequestFrame frame, IRequestHandler handler, int deadlineMs)
    {
        public RequestFrame Frame { get; } = frame;
        public IRequestHandler Handler { get; } = handler;
        public int DeadlineMs { get; } = deadlineMs;
        public CancellationTokenSource Cts { get; } = new();
        public volatile bool CancelledByClient;
    }

    public RpcServer(TextReader input, Stream output, IEnumerable<IRequestHandler> handlers, HostState state)
    {
        _input = input;
        _output = output;
        _handlers = handlers.ToDictionary(h => h.Method, StringComparer.Ordinal);
        _state = state;
        _queue = Channel.CreateBounded<Pending>(new BoundedChannelOptions(state.Options.QueueSize)
        {
            SingleReader = true,
            SingleWriter = true,
            FullMode = BoundedChannelFullMode.Wait,
        });
        state.QueuedCount = () => Volatile.Read(ref _queued);
        state.CancelRequest = Cancel;
        state.RequestShutdown = () => { _stopping = true; _queue.Writer.TryComplete(); };
    }

    public int Run()
    {
        var worker = new Thread(WorkerLoop, maxStackSize: 256 * 1024 * 1024) { Name = "roslyn-host worker", IsBackground = true };
        worker.Start();
        while (!_stopping)
        {
            string? line;
            try
            {
                line = _input.ReadLine();
            }
            catch (IOException)
            {
                break;
            }
            if (line is null) break;
            if (line.Length == 0) continue;
            Dispatch(line);
        }
        // stdin EOF: finish what was asked (deadlines still apply). shutdown: cancel what is left.
        _queue.Writer.TryComplete();
        if (_stopping)
        {
            foreach (var p in _live.Values)
            {
                p.CancelledByClient = true;
                try { p.Cts.Cancel(); } catch (ObjectDisposedException) { }
            }
            worker.Join(TimeSpan.FromSeconds(5));
        }
        else worker.Join();
        return 0;
    }

    private void Dispatch(string line)
    {
        RequestFrame frame;
        try
        {
            frame = ParseFrame(line);
        }
        catch (Exception e)
        {
            Write(new ResponseFrame(null, null, new ErrorPayload(ErrorCodes.InvalidRequest, $"unreadable frame: {e.Message}")));
            return;
        }
        if (!_handlers.TryGetValue(frame.Method, out var handler))
        {
            Write(new ResponseFrame(frame.Id, null, new ErrorPayload(ErrorCodes.MethodNotFound, $"unknown method '{frame.Method}'")));
            return;
        }
        var deadline = frame.DeadlineMs is > 0 ? frame.DeadlineMs.Value : handler.DefaultDeadlineMs;
        var pending = new Pending(frame, handler, deadline);
        if (handler.Inline)
        {
            Execute(pending);
            return;
        }
        // The deadline runs from receipt: time spent waiting in the queue counts.
        pending.Cts.CancelAfter(deadline);
        if (!_live.TryAdd(frame.Id, pending))
        {
            Write(new ResponseFrame(frame.Id, null, new ErrorPayload(ErrorCodes.InvalidRequest, $"duplicate request id {frame.Id}")));
            return;
        }
        if (!_queue.Writer.TryWrite(pending))
        {
            _live.TryRemove(frame.Id, out _);
            pending.Cts.Dispose();
            Write(new ResponseFrame(frame.Id, null, new ErrorPayload(ErrorCodes.Backpressure,
                $"request queue full ({_state.Options.QueueSize} waiting); retry later", new { queueSize = _state.Options.QueueSize })));
            return;
        }
        Interlocked.Increment(ref _queued);
    }

    private static RequestFrame ParseFrame(string line)
    {
        using var doc = JsonDocument.Parse(line);
        var root = doc.RootElement;
        if (root.ValueKind != JsonValueKind.Object) throw new FormatException("frame is not an object");
        if (!root.TryGetProperty("id", out var idEl) || idEl.ValueKind != JsonValueKind.Number) throw new FormatException("missing numeric id");
        if (!root.TryGetProperty("method", out var mEl) || mEl.ValueKind != JsonValueKind.String) throw new FormatException("missing method");
        JsonElement? ps = root.TryGetProperty("params", out var pEl) ? pEl.Clone() : null;
        int? deadline = root.TryGetProperty("deadlineMs", out var dEl) && dEl.ValueKind == JsonValueKind.Number ? dEl.GetInt32() : null;
        return new RequestFrame(idEl.GetInt64(), mEl.GetString()!, ps, deadline);
    }

    private void WorkerLoop()
    {
        var reader = _queue.Reader;
        while (reader.WaitToReadAsync().AsTask().GetAwaiter().GetResult())
        {
            while (reader.TryRead(out var pending))
            {
                Interlocked.Decrement(ref _queued);
                try
                {
                    Execute(pending);
                }
                finally
                {
                    _live.TryRemove(pending.Frame.Id, out _);
                    pending.Cts.Dispose();
                }
            }
        }
    }

    private void Execute(Pending pending)
    {
        var id = pending.Frame.Id;
        ResponseFrame response;
        try
        {
            pending.Cts.Token.ThrowIfCancellationRequested();
            var result = pending.Handler.Handle(pending.Frame.Params, new RequestContext(id, pending.Cts.Token, _state));
            response = new ResponseFrame(id, result, null);
        }
        catch (OperationCanceledException) when (pending.Cts.IsCancellationRequested)
        {
            response = pending.CancelledByClient
                ? new ResponseFrame(id, null, new ErrorPayload(ErrorCodes.Cancelled, "request cancelled by the client"))
                : new ResponseFrame(id, null, new ErrorPayload(ErrorCodes.Timeout,
                    $"{pending.Frame.Method} exceeded its deadline of {pending.DeadlineMs} ms", new { deadlineMs = pending.DeadlineMs }));
        }
        catch (HostException e)
        {
            response = new ResponseFrame(id, null, new ErrorPayload(e.Code, e.Message, e.Data2));
        }
        catch (OutOfMemoryException e)
        {
            // The supervisor restarts the process on this code; answering first keeps the caller informed.
            response = new ResponseFrame(id, null, new ErrorPayload(ErrorCodes.OomRestart, $"out of memory: {e.Message}"));
        }
        catch (Exception e)
        {
            Log.Error($"{pending.Frame.Method} #{id} failed: {e}");
            response = new ResponseFrame(id, null, new ErrorPayload(ErrorCodes.Internal, $"{e.GetType().Name}: {e.Message}"));
        }
        Write(response);
    }

    private bool Cancel(long id)
    {
        if (!_live.TryGetValue(id, out var pending)) return false;
        pending.CancelledByClient = true;
        try
        {
            pending.Cts.Cancel();
        }
        catch (ObjectDisposedException)
        {
            return false;
        }
        return true;
    }

    private void Write(ResponseFrame frame)
    {
        byte[] bytes;
        try
        {
            bytes = JsonSerializer.SerializeToUtf8Bytes(frame, Json.Options);
        }
        catch (Exception e)
        {
            Log.Error($"cannot serialise response #{frame.Id}: {e}");
            bytes = JsonSerializer.SerializeToUtf8Bytes(
                new ResponseFrame(frame.Id, null, new ErrorPayload(ErrorCodes.Internal, $"cannot serialise result: {e.Message}")), Json.Options);
        }
        lock (_writeGate)
        {
            _output.Write(bytes);
            _output.WriteByte((byte)'\n');
            _output.Flush();
        }
    }

    public static Encoding Utf8NoBom { get; } = new UTF8Encoding(false);
}
