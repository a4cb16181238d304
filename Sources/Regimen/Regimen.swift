// Regimen: placeholder until the module lands.
