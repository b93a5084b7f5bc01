using System.Text.Json;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Test hook (--enable-test-methods): occupies the worker so queue and deadline tests are deterministic.</summary>
public sealed class DebugSleepHandler : IRequestHandler
{
    public string Method => Methods.DebugSleep;
    public bool Inline => false;
    public int DefaultDeadlineMs => 60_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = Json.Params<SleepParams>(parameters);
        context.CancellationToken.WaitHandle.WaitOne(p.Ms);
        context.CancellationToken.ThrowIfCancellationRequested();
        return new ShutdownResult(true);
    }
}
