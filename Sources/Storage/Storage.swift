// Storage: placeholder until the module lands.
