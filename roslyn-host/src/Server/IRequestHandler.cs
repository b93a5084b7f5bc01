using System.Text.Json;

namespace CodeAgent.RoslynHost.Server;

/// <summary>One handler per wire method.</summary>
public interface IRequestHandler
{
    string Method { get; }

    /// <summary>Inline handlers run on the reader thread and must be fast (ping, cancel, handshake).</summary>
    bool Inline { get; }

    int DefaultDeadlineMs { get; }

    object Handle(JsonElement? parameters, RequestContext context);
}

public sealed class RequestContext(long id, CancellationToken cancellationToken, HostState state)
{
    public long Id { get; } = id;
    public CancellationToken CancellationToken { get; } = cancellationToken;
    public HostState State { get; } = state;
}
