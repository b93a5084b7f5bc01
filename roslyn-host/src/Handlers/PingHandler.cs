using System.Diagnostics;
using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Health check; answered on the reader thread so a busy worker does not delay it.</summary>
public sealed class PingHandler : IRequestHandler
{
    public string Method => Methods.Ping;
    public bool Inline => true;
    public int DefaultDeadlineMs => 5_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        using var self = Process.GetCurrentProcess();
        return new PingResult(
            context.State.Uptime.ElapsedMilliseconds,
            self.WorkingSet64,
            self.PeakWorkingSet64,
            context.State.QueuedCount(),
            context.State.Workspace.ProjectCount);
    }
}
