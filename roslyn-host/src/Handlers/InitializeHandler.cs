using System.Runtime.InteropServices;
using System.Text.Json;
using CodeAgent.RoslynHost.Loading;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Handshake: checks the client's protocol version and announces capabilities.</summary>
public sealed class InitializeHandler : IRequestHandler
{
    public string Method => Methods.Initialize;
    public bool Inline => true;
    public int DefaultDeadlineMs => 10_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = Json.Params<InitializeParams>(parameters);
        if (p.ProtocolVersion != ProtocolInfo.ProtocolVersion)
        {
            throw new HostException(ErrorCodes.SemanticUnavailable,
                $"protocol version mismatch: client {p.ProtocolVersion}, host {ProtocolInfo.ProtocolVersion}; rebuild roslyn-host");
        }
        var roslyn = typeof(Microsoft.CodeAnalysis.CSharp.CSharpCompilation).Assembly.GetName().Version?.ToString() ?? "unknown";
        var methods = new List<string> { Methods.Initialize, Methods.Ping, Methods.Cancel, Methods.Shutdown, Methods.LoadProject, Methods.Analyze, Methods.UnloadProject, Methods.PrepareRazor };
        if (context.State.Options.EnableTestMethods) methods.Add(Methods.DebugSleep);
        return new InitializeResult(
            ProtocolInfo.ProtocolVersion,
            ProtocolInfo.ExtractorVersion,
            roslyn,
            RuntimeInformation.FrameworkDescription,
            Environment.ProcessId,
            DotnetSdk.Root,
            new Capabilities(
                SafeMode: true,
                UnsafeMode: false,
                UnsafeModeUnavailableReason: HandlerRegistry.UnsafeModeUnavailable,
                Methods: methods,
                EdgeTypes: ["calls", "references", "inherits", "implements", "overrides", "extends"],
                QueueSize: context.State.Options.QueueSize,
                DefaultBatchDeadlineMs: ProtocolInfo.DefaultBatchDeadlineMs,
                DefaultLoadDeadlineMs: ProtocolInfo.DefaultLoadDeadlineMs));
    }
}
