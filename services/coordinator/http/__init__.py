"""What every feature's routes share: the FastAPI dependencies (session, API key and role, the
runtime) and the error answers the OpenAPI document declares."""
