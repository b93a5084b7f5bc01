using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Graceful exit: stops reading, finishes nothing new, exits once the worker drains.</summary>
public sealed class ShutdownHandler : IRequestHandler
{
    public string Method => Methods.Shutdown;
    public bool Inline => true;
    public int DefaultDeadlineMs => 5_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        context.State.RequestShutdown();
        return new ShutdownResult(true);
    }
}
