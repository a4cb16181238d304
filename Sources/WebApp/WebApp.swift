// WebApp: placeholder until the module lands.
