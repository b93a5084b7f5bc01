namespace Evil.App;

public class Greeter
{
    private int _count;

    public string Greet(string name)
    {
        _count++;
        return Format(name);
    }

    private static string Format(string name) => "Hello " + name;
}
