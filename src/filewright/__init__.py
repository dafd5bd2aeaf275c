def hello() -> str:
    return "Hello from filewright!"
